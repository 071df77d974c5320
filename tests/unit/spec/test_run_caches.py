"""spec/run_caches.py: which caches a campaign gives its guests (measured, else reported,
else none), the `shared` level between the first two CPUs, and the size parameters no
cache answers, each named with why."""
from __future__ import annotations

from tests.framework.hosts import host
from xtalk.spec.load import parse_campaign
from xtalk.spec.plan import plan
from xtalk.spec.run_caches import cpu_list, measured_caches, reported_shared, run_caches, unanswered, with_caches

RECORD = {"cpus": [0, 1], "measured_at": "2026-11-28T15:00:00+00:00",
          "levels": [{"level": 1, "size_bytes": 34000, "shared_with_neighbour": False},
                     {"level": 2, "size_bytes": 980000, "shared_with_neighbour": False},
                     {"level": 3, "size_bytes": 15 << 20, "shared_with_neighbour": True}]}


def sysfs_host(shared_cpus: str = "0-1") -> dict:
    facts = host(32)
    facts["caches"] = [dict(c, shared_cpus="0") for c in facts["caches"]]
    facts["caches"][-1]["shared_cpus"] = shared_cpus
    return facts


def test_cpu_lists_read_as_sysfs_writes_them():
    assert cpu_list("0-3,8") == {0, 1, 2, 3, 8} and cpu_list("") == set()


def test_measured_sizes_win_and_shared_is_the_largest_shared_level_between_the_measured_cpus():
    caches = run_caches(RECORD, sysfs_host(), [0, 1], "measured", local=True)
    assert caches["source"] == "measured" and caches["why"] is None
    assert (caches["l1"], caches["l2"], caches["l3"], caches["llc"], caches["shared"]) == (
        34000, 980000, 15 << 20, 15 << 20, 15 << 20)
    assert "shared" not in measured_caches(RECORD, [1, 0])


def test_reported_on_request_or_without_a_measurement_shared_from_sysfs():
    for record, wanted in ((RECORD, "reported"), (None, "measured")):
        caches = run_caches(record, sysfs_host(), [0, 1], wanted, local=True)
        assert caches["source"] == "reported" and caches["llc"] == 32 << 20 and caches["shared"] == 32 << 20
    alone = run_caches(None, sysfs_host("0"), [0, 1], "measured", local=True)
    assert "shared" not in alone and "reports no cache level shared by CPUs 0, 1" in alone["why"]
    assert reported_shared(sysfs_host(), [1, 0]) is None  # only cpu0's caches are known


def test_a_measurement_the_machine_could_not_answer_for_is_not_used():
    levels_voided = dict(RECORD, voided={"levels": "the machine cannot answer for the levels' sizes: ... 95 %"})
    caches = run_caches(levels_voided, sysfs_host(), [0, 1], "measured", local=True)
    assert caches["source"] == "reported" and caches["llc"] == 32 << 20
    sharing_voided = dict(RECORD, voided={"sharing": "the machine cannot answer for which levels are shared: 95 %"})
    assert "shared" not in measured_caches(sharing_voided, [0, 1]) and measured_caches(sharing_voided, [0, 1])["l1"]


def test_a_guest_on_another_machine_detects_its_own_unless_measured():
    assert run_caches(None, sysfs_host(), [0, 1], "measured", local=False)["source"] == ""
    assert run_caches(RECORD, sysfs_host(), [0, 1], "measured", local=False)["source"] == "measured"


def test_a_size_in_a_level_nobody_has_is_named_with_why():
    none_shared = dict(RECORD, levels=[dict(lv, shared_with_neighbour=False) for lv in RECORD["levels"]])
    caches = run_caches(none_shared, sysfs_host(), [0, 1], "measured", local=True)
    assert unanswered({"size": "shared/2"}, caches) == (
        "shared/2: xtalk host caches measured no level shared between CPUs 0 and 1 (2026-11-28)")
    assert unanswered({"size": "llc*2"}, caches) is None and unanswered({"size": 4096}, caches) is None


SPEC = """
name = "s"
cpus = [0, 1]
[backend]
kind = "native"
[measurer]
bench = "pointer_chase"
params = { size = "shared/2" }
[[stressors]]
name = "copy"
bench = "memcpy"
params = { size = "l2" }
[matrix]
placement = ["solo", "other-core"]
"""


def test_a_campaign_gives_every_run_its_caches_and_names_each_unanswered_size(tmp_path, monkeypatch):
    spec, raw = parse_campaign(SPEC, "s.toml")
    runs, problems = with_caches(plan(spec, raw), tmp_path, sysfs_host())
    assert problems == [] and all(dict(r.caches)["shared"] == 32 << 20 and r.caches_source == "reported"
                                  for r in runs)
    runs, problems = with_caches(plan(spec, raw), tmp_path, sysfs_host("0"))
    assert [p.path for p in problems] == ["measurer.params.size"], problems
