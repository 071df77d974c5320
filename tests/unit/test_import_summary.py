"""`xtalk import`'s output: one line per log with its metrics, each problem once with the
number of logs that had it; the hint for a second configuration only where one is missing."""
from xtalk.cli.import_cmd import summary
from xtalk.report.second_config import second_config_hint


def meta(run_id: str, status: str = "pass", reason: str = "", errors=()) -> dict:
    return {"run_id": run_id, "status": status, "reason": reason, "sample_count": 47, "imported_from": f"/l/{run_id}",
            "metrics": {str(i): {"name": f"m{i}"} for i in range(47)}, "guest_errors": [{"msg": e} for e in errors]}


def test_problems_are_told_once_with_their_count():
    lines = summary([meta("solo-r1", "fail", "overrun", ["timer overrun"]), meta("solo-r2"),
                     meta("solo-r3", "fail", "overrun", ["timer overrun"])])
    assert len(lines) == 5 and all("47 metrics" in line for line in lines[:3])
    assert lines[3:] == ["  2 of 3 logs: fail: overrun", "  2 of 3 logs: guest error: timer overrun"]


def test_the_hint_names_the_command_for_an_import_and_the_matrix_for_a_spec():
    imported = {"backend": {"kind": "imported"}, "measurer": {"output": "zephyr-thread-metric"}}
    hint = second_config_hint("tm", imported, {"solo": {"placement": "solo"}}, "out")
    assert hint.endswith("xtalk import tm --output zephyr-thread-metric --config placement=same-core --append --out out "
                         "LOG...")
    measured = second_config_hint("q", {"backend": {"kind": "native"}}, {"solo": {"placement": "solo"}}, "out")
    assert 'placement = ["solo", "same-core"]' in measured
    assert second_config_hint("tm", imported, {"solo": {}, "same-core": {}}, "out") is None
    other = second_config_hint("q", {"backend": {"kind": "native"}}, {"other-core": {"placement": "other-core"}}, "o")
    assert 'placement = ["solo", "other-core"]' in other  # the one it has, next to solo
    on_off = {"backend": {"kind": "qemu"}, "timeline": [{"at_s": 1, "action": "start", "target": "bw"}]}
    assert second_config_hint("q", on_off, {"other-core": {"placement": "other-core"}}, "o") is None  # windows decide
    assert second_config_hint("q", {"paired": {"stressors": ["bw"]}}, {"solo": {"placement": "solo"}}, "o") is None
