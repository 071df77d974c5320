"""Stressors are watched like the measurer (src/xtalk/running/watch.py), on native processes and
on QEMU (the Xen lab: tests/framework/xen_lab.py): a stressor killed mid-run, one
stopped (SIGSTOP) for the whole run and one that ends at once with an error (out of
memory: a size spec check lets through, XT END status=fail) each fail their run with a
reason naming it, or degrade it with
run.stressor_failure = "degrade"; the report lists them and no statistic or verdict uses
them. Healthy stressors on the measurer's core or another keep their run passing with
their exposure recorded, and each timeline event is checked to have taken effect."""
from __future__ import annotations

import json
import os
import signal
import threading
import time

import pytest

from tests.framework.backends import BACKENDS
from tests.framework.cli import alive, campaign_dir, guest_pids, run_meta, start, wait_for, write_spec, xtalk


SPEC = """
name = "watch"
cpus = [0, 1]
[backend]
kind = "{backend}"
[run]
duration_s = {duration}
grace_s = 10
{run}
[measurer]
bench = "qsort"
params = {{ size_kib = 256 }}
[[stressors]]
name = "thrash"
bench = "cache_thrash"
[matrix]
placement = {placements}
start_order = ["stressor-first"]
"stressors.thrash.params.size" = {sizes}
{timeline}"""


@pytest.fixture(autouse=True)
def built(native_bench):
    return native_bench


def spec(tmp_path, backend: str, sizes: str, duration: float = 3, placements: str = '["same-core"]',
         run: str = "", timeline: str = ""):
    return write_spec(tmp_path, SPEC.format(backend=backend, duration=duration, placements=placements, sizes=sizes,
                                            run=run, timeline=timeline))


def events(out, run_id: str) -> list[dict]:
    path = (campaign_dir(out) or out) / "runs" / run_id / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")] if path.exists() else []


def began(out, run_id: str) -> bool:
    return any(e["kind"] == "measurer_begin" for e in events(out, run_id))


def report(out) -> dict:
    res = xtalk("report", "watch", "--out", out, "--json", "--no-samples", "--no-plots")
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def check_exposure(meta: dict, share: tuple[float, float]) -> dict:
    """A healthy stressor was there all along: exposure ~1 whatever its CPU share, unless
    work outside the run took its CPU (a shared host: noise accounting, host/noise.py)."""
    watch = meta["stressors_watch"]["thrash"]
    assert meta["status"] == "pass" and watch["alive"], meta["reason"]
    (cpu,) = meta["stressors"][0]["cpus"]
    if meta["noise"]["cpus"][str(cpu)]["foreign_pct"] < 20:
        assert watch["exposure"] >= 0.9 and share[0] < watch["cpu_share"] < share[1], (watch, meta["noise"])
    return watch


def no_workload_left(out) -> None:
    pids = guest_pids(out)
    wait_for(lambda: not any(alive(p) for p in pids.values()), 10, "every workload to be gone")


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_killed_stopped_and_failing_stressors_fail_their_runs(tmp_path, backend):
    out = tmp_path / "out"
    proc = start("run", spec(tmp_path, backend, '["1m", "2m", "64g", "4m"]'), "--out", out)
    try:
        victim = wait_for(lambda: began(out, "size-1m-r1") and guest_pids(out).get("size-1m-r1/thrash"), 60,
                          "the first run's measurer to begin")
        time.sleep(0.5)
        os.kill(victim, signal.SIGKILL)
        frozen = wait_for(lambda: guest_pids(out).get("size-2m-r1/thrash"), 60, "the second run's stressor")
        os.kill(frozen, signal.SIGSTOP)  # before its measurer starts: stopped for the whole run
        _, stderr = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 3, stderr
    assert "3 of 4 runs did not pass" in stderr and "Traceback" not in stderr, stderr
    killed, stopped, failing, healthy = (run_meta(out, f"size-{s}-r1") for s in ("1m", "2m", "64g", "4m"))
    assert killed["status"] == "fail" and "stressor thrash exited (status -9)" in killed["reason"], killed["reason"]
    assert killed["stressors_watch"]["thrash"]["alive"] is False
    assert stopped["status"] == "fail" and "stressor thrash was stopped by someone else" in stopped["reason"]
    assert stopped["stressors_watch"]["thrash"]["stopped_s"] > 2.0, stopped["stressors_watch"]
    assert failing["status"] == "fail" and "stressor thrash exited" in failing["reason"]
    assert "XT END status=fail (out of memory for cache_thrash)" in failing["reason"], failing["reason"]
    assert failing["stressors_watch"]["thrash"]["end"]["status"] == "fail"
    watch = check_exposure(healthy, (0.2, 0.8))  # half a shared core, yet there all along
    print(f"\n{backend} same-core cache_thrash: exposure {watch['exposure']}, cpu share {watch['cpu_share']}")
    for meta in (killed, stopped, failing):
        assert meta["sample_count"] > 0  # what the measurer measured is kept
    result = report(out)
    warned = {w["scope"]: w["message"] for w in result["warnings"] if w["message"].startswith("run status fail")}
    assert set(warned) == {"size-1m-r1", "size-2m-r1", "size-64g-r1"}, result["warnings"]
    assert all("stressor thrash" in m for m in warned.values()), warned
    assert {s["config_id"] for s in result["stats"]} == {"size-4m"}
    assert {v["config_id"] for v in result["verdicts"]} <= {"size-4m"}
    no_workload_left(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_failing_stressor_degrades_the_run_when_the_spec_allows(tmp_path, backend):
    out = tmp_path / "out"
    res = xtalk("run", spec(tmp_path, backend, '["64g"]', duration=1, run='stressor_failure = "degrade"'),
                "--out", out, "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["degraded"] == 1
    assert "1 of 1 runs degraded" in res.stderr and "stressor thrash exited" in res.stderr, res.stderr
    meta = run_meta(out, "same-core-r1")
    assert meta["status"] == "degraded" and "XT END status=fail" in meta["reason"], meta["reason"]
    result = report(out)
    assert result["stats"] == [] and result["verdicts"] == []
    (warning,) = [w for w in result["warnings"] if w["scope"] == "same-core-r1" and "run status" in w["message"]]
    assert warning["level"] == "warning" and warning["message"].startswith("run status degraded: stressor thrash")
    shown = xtalk("show", "watch/same-core-r1", "--out", out)
    assert "status=degraded" in shown.stdout and "stressor thrash: exposure 0 %" in shown.stdout, shown.stdout
    no_workload_left(out)


PAUSE_RESUME = ('[[timeline]]\nat_s = 1.0\naction = "pause"\ntarget = "thrash"\n'
                '[[timeline]]\nat_s = 2.0\naction = "resume"\ntarget = "thrash"\n')


@pytest.mark.parametrize("backend", BACKENDS)
def test_healthy_stressors_pass_with_their_exposure_and_checked_events(tmp_path, backend):
    out = tmp_path / "out"
    res = xtalk("run", spec(tmp_path, backend, '["4m"]', placements='["same-core", "other-core"]',
                            timeline=PAUSE_RESUME), "--out", out)
    assert res.returncode == 0, res.stderr
    for placement, share in (("same-core", (0.2, 0.8)), ("other-core", (0.6, 1.05))):
        meta = run_meta(out, f"{placement}-r1")
        watch = check_exposure(meta, share)
        print(f"\n{backend} {placement} cache_thrash, paused 1 s of 3: exposure {watch['exposure']}, "
              f"cpu share {watch['cpu_share']}, on-time {watch['on_s']} s, noisy CPUs {meta['noise']['noisy_cpus']}")
        assert 1.6 < watch["on_s"] < 2.5, watch  # the window less the second it was paused
        assert [(e["action"], e["took_effect"]) for e in watch["timeline"]] == [("pause", True), ("resume", True)]
        checked = [e for e in events(out, meta["run_id"]) if e["kind"] == "timeline_effect"]
        assert [e["took_effect"] for e in checked] == [True, True], checked
    no_workload_left(out)


def test_a_pause_undone_behind_xtalks_back_did_not_take_effect(tmp_path):
    """SIGCONT sent to the stressor over and over: xtalk's pause (SIGSTOP) does not hold."""
    out = tmp_path / "out"
    proc = start("run", spec(tmp_path, "native", '["4m"]', timeline=PAUSE_RESUME), "--out", out)
    done = threading.Event()

    def keep_continuing():
        pid = wait_for(lambda: guest_pids(out).get("same-core-r1/thrash"), 30, "the stressor")
        while not done.wait(0.005):
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                return

    spammer = threading.Thread(target=keep_continuing)
    spammer.start()
    try:
        _, stderr = proc.communicate(timeout=60)
    finally:
        done.set()
        spammer.join()
    assert proc.returncode == 3, stderr
    meta = run_meta(out, "same-core-r1")
    assert meta["status"] == "fail", meta
    assert "stressor thrash timeline pause at 1 s did not take effect" in meta["reason"], meta["reason"]
    (pause,) = [e for e in events(out, "same-core-r1") if e["kind"] == "timeline_effect" and e["action"] == "pause"]
    assert pause["took_effect"] is False and "ms of CPU" in pause["detail"], pause
    no_workload_left(out)
