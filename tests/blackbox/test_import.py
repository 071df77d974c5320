"""`xtalk import`: real Zephyr console logs (tests/data/zephyr, captured under QEMU) as
campaigns. The runs of a configuration are the captured log with its figures moved by a
seeded few per cent (one captured log per benchmark exists; runs of real hardware differ
like that); a "same-core" configuration has them 60 % higher, so its verdict must find
it, and a second import of solo-like logs must not. Bad input stops before anything is
stored."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from tests.framework.cli import xtalk
from tests.framework.repo import ROOT
from tests.framework.result_contract import check_result
from tests.framework.tmpfs import fill, mount  # noqa: F401 - mount: a fixture

LOGS = ROOT / "tests" / "data" / "zephyr"
LATENCY = (LOGS / "latency_measure-qemu_x86_64-tcg.log").read_text()
OP_LINE = re.compile(r"^(\S+)\s+- .*:\s+(\d+) cycles ,\s+(\d+) ns :", re.M)


def scaled_log(text: str, factor: float, rng: np.random.Generator) -> str:
    """The log with every operation's cycles and ns times factor and a 2 % jitter."""
    def one(m: re.Match) -> str:
        f = factor * rng.normal(1.0, 0.02)
        line = m.group(0)
        line = line.replace(f"{m.group(2)} cycles", f"{round(int(m.group(2)) * f)} cycles", 1)
        return line.replace(f"{m.group(3)} ns", f"{round(int(m.group(3)) * f)} ns", 1)
    return OP_LINE.sub(one, text)


def logs(tmp_path, tag: str, factor: float, n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    paths = []
    for i in range(n):
        path = tmp_path / f"{tag}-{i}.log"
        path.write_text(scaled_log(LATENCY, factor, rng))
        paths.append(str(path))
    return paths


def campaigns(out) -> list:
    return sorted(p for p in out.iterdir() if (p / "campaign.json").is_file()) if out.is_dir() else []


@pytest.mark.slow
def test_imported_latency_logs_give_verdicts_and_a_report(tmp_path):
    out = tmp_path / "results"
    first = xtalk("import", "thesis", "--output", "zephyr-latency-measure", "--config", "placement=solo",
                  "--out", out, *logs(tmp_path, "solo", 1.0, 5, 1))
    assert first.returncode == 0, first.stderr
    assert first.stdout.count(" pass ") == 5
    added = xtalk("import", "thesis", "--output", "zephyr-latency-measure", "--config", "placement=same-core",
                  "--append", "--out", out, *logs(tmp_path, "same", 1.6, 5, 2))
    assert added.returncode == 0, added.stderr
    (campaign,) = campaigns(out)
    info = json.loads((campaign / "campaign.json").read_text())
    assert info["spec"]["matrix"]["placement"] == ["solo", "same-core"] and len(info["planned_runs"]) == 10

    shown = xtalk("show", campaign, "--json")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    ops = {m.group(1): int(m.group(3)) for m in OP_LINE.finditer(LATENCY)}
    stats = {(s["config_id"], s["metric"]): s for s in data["stats"]}
    assert {m for _, m in stats} == set(ops)            # every operation line is a metric
    assert all(stats[("solo", op)]["n"] == 5 for op in ops)  # one sample per run and operation
    yield_ns = stats[("solo", "thread.yield.preemptive.ctx.k_to_k")]["median"]
    assert abs(yield_ns - ops["thread.yield.preemptive.ctx.k_to_k"]) < 0.1 * ops["thread.yield.preemptive.ctx.k_to_k"]
    same = [v for v in data["verdicts"] if v["config_id"] == "same-core"]
    assert same and all(v["verdict"] == "interference" for v in same), [(v["metric"], v["verdict"]) for v in same]
    assert all(50 < v["change_pct"] < 70 for v in same)
    table = xtalk("show", campaign)
    # the rest of the title line, top rule, header, rule, then the first row with its unit
    assert "ns" in table.stdout.split("Statistics per configuration")[1].splitlines()[4]

    report = xtalk("report", campaign, "--no-plots")  # its tables and JSON; the plots: test_report.py
    assert report.returncode == 0, report.stderr
    check_result(json.loads((campaign / "report" / "report.json").read_text()))
    html = (campaign / "report" / "report.html").read_text()
    assert "thread.yield.preemptive.ctx.k_to_k" in html and "interference" in html


def test_an_aa_import_is_not_called_different(tmp_path):
    out = tmp_path / "results"
    for placement, seed, extra in (("solo", 3, []), ("same-core", 4, ["--append"])):
        proc = xtalk("import", "aa", "--output", "zephyr-latency-measure", "--config", f"placement={placement}",
                     *extra, "--out", out, *logs(tmp_path, placement, 1.0, 5, seed))
        assert proc.returncode == 0, proc.stderr
    data = json.loads(xtalk("show", campaigns(out)[0], "--json").stdout)
    verdicts = [v["verdict"] for v in data["verdicts"] if v["config_id"] == "same-core"]
    assert verdicts and "interference" not in verdicts


def test_thread_metric_logs_keep_the_times_they_print(tmp_path):
    out = tmp_path / "results"
    log = LOGS / "thread_metric_preemptive-qemu_x86_64-tcg.log"
    proc = xtalk("import", "tm", "--output", "zephyr-thread-metric", "--out", out, log)
    assert proc.returncode == 0, proc.stderr
    run_dir = next((campaigns(out)[0] / "runs").iterdir())
    import pyarrow.parquet as pq
    table = pq.read_table(run_dir / "samples.parquet").to_pydict()
    assert table["value"] == [2574615, 2574967, 2574966]
    assert [round(t) for t in table["t_s"]] == [30, 60, 90]


def test_bad_input_is_refused_before_anything_is_stored(tmp_path):
    out = tmp_path / "results"
    good = logs(tmp_path, "ok", 1.0, 1, 5)[0]
    cases = [
        (["--output", "zephyr-latency-measur", good], "did you mean zephyr-latency-measure"),
        (["--output", "zephyr-thread-metric", good], "found no measurement"),
        (["--output", "zephyr-latency-measure", good, str(tmp_path / "missing.log")], "missing.log"),
        (["--output", "zephyr-latency-measure", "--config", "placement=sideways", good], "placement"),
        (["--output", "zephyr-latency-measure", "--append", good], "no campaign"),
        (["--output", "regex", "--parser", "sample=(", good], "sample"),
        (["--output", "regex", "--parser", r"sample=(?P<value>\d+)\1", good], "--parser sample: Value error, not a "
         "pattern xtalk can run in linear time (RE2)"),
    ]
    (tmp_path / "bin.log").write_bytes(bytes(range(256)) * 64)
    cases.append((["--output", "zephyr-latency-measure", str(tmp_path / "bin.log")], "binary"))
    # issue 43: a FIFO no writer closes hung the import; /dev/zero behind a symlink was read to 1 GiB; a
    # 98 MB line took an estimated 3.6 GB to parse
    os.mkfifo(tmp_path / "fifo.log")
    (tmp_path / "zero.log").symlink_to("/dev/zero")
    (tmp_path / "long.log").write_bytes(Path(good).read_bytes() + b"x" * (2 << 20) + b"\n")
    cases += [(["--output", "zephyr-latency-measure", str(tmp_path / "fifo.log")], "fifo.log: a FIFO, not a console log"),
              (["--output", "zephyr-latency-measure", str(tmp_path / "zero.log")], "zero.log: a device, not a console log"),
              (["--output", "zephyr-latency-measure", str(tmp_path / "long.log")], "is longer than 1024 KiB")]
    for args, words in cases:
        proc = xtalk("import", "bad", *args, "--out", out)
        assert proc.returncode == 2, (args, proc.returncode, proc.stderr)
        assert words in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert campaigns(out) == [], args


def test_a_solo_import_is_compact_has_no_host_doubts_and_says_how_to_add_a_configuration(tmp_path):
    out = tmp_path / "results"
    log = tmp_path / "solo.log"
    log.write_text(LATENCY)
    first = xtalk("import", "one", "--output", "zephyr-latency-measure", "--out", out, log)
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    ops = len(OP_LINE.findall(LATENCY))
    assert len(lines) == 3 and f"{ops} metrics" in lines[0], first.stdout  # the log, the campaign, the hint
    command = f"xtalk import one --output zephyr-latency-measure --config placement=same-core --append --out {out} LOG..."
    assert lines[2].endswith(command), lines[2]
    (campaign,) = campaigns(out)

    shown = xtalk("show", campaign)
    assert shown.returncode == 0, shown.stderr
    doubts = shown.stdout.split("What makes a number doubtful")[1].split("Setup")[0]
    assert "isolated CPUs" not in doubts and "nohz_full" not in doubts  # no host facts: nothing said of a host
    assert command in " ".join(doubts.split())                           # the hint, as the import printed it
    assert len(doubts.strip().splitlines()) <= 6, doubts                 # one line per kind of doubt, not per metric
    assert f"{ops} metrics (" in doubts

    argv = command.removeprefix("xtalk ").replace("LOG...", "").split()
    added = xtalk(*argv, *logs(tmp_path, "same", 1.6, 1, 3))            # the hint's command, as given
    assert added.returncode == 0, added.stderr
    assert "one configuration only" not in added.stdout and "2 configurations (solo, same-core)" in added.stdout


def test_import_append_on_a_full_disk_leaves_no_run_looking_alive(tmp_path, mount):
    """Issue 58: --append on a full disk left a run "running" and a partial file, said only
    "No space left on device", and verify exited 0 after."""
    out = mount("size=16m") / "results"
    args = ("--output", "zephyr-latency-measure", "--out", out)
    first = xtalk("import", "thesis", *args, "--config", "placement=solo", *logs(tmp_path, "solo", 1.0, 2, 1))
    assert first.returncode == 0, first.stderr
    filler = fill(out.parent, leave=4096)
    later = logs(tmp_path, "same", 1.6, 3, 2)
    res = xtalk("import", "thesis", *args, "--config", "placement=same-core", "--append", *later)
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 3 and len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert lines[0].startswith(f"xtalk: error: import of {later[0]} stopped: ") and "No space left on device" in lines[0]
    assert "free space, then import" in lines[0] and "--append" in lines[0], lines[0]
    (campaign,) = campaigns(out)
    records = [json.loads(p.read_text()) for p in sorted(campaign.glob("runs/*/meta.json"))]
    assert [r["status"] for r in records if r["config_id"] == "solo"] == ["pass", "pass"]
    assert all(r["status"] == "error" and r["sample_count"] == 0 for r in records if r["config_id"] != "solo"), records
    assert not [p for p in campaign.glob("runs/same-core-*/samples.bin") if p.stat().st_size]  # no partial samples
    filler.unlink()
    again = xtalk("import", "thesis", *args, "--config", "placement=same-core", "--append", *later)
    assert again.returncode == 0, again.stderr
    shown = xtalk("show", campaign, "--verify", "--json")
    assert shown.returncode == 0, shown.stderr
