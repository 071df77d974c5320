"""The xen backend against real Xen 4.17 (Debian's) booted under QEMU: the Xen lab.

One lab per architecture for the module (`xtalk lab start xen`), campaigns run through
the CLI with executor = "lab", and every test checks with `xl list` in dom0 that no
domain xtalk created survives. arm64 first (the thesis platform, faster under TCG),
then x86_64 (PVH probe guest). Timings are emulation; the mechanics are real Xen.
"""
from __future__ import annotations

import json
import signal
import time

import pytest

from xtalk.running.watch import STALL_EXPOSURE
from tests.framework.cli import campaign_dir, start, wait_for, xtalk
from tests.framework.lab_pace import DomZeroPace
from tests.framework.repo import ROOT
from tests.framework.xen_lab import (LAB_GROUP, LINUX_RT_GUESTS, TIMELINE, campaign, check_linux_rt_runs, events, extra_pools,
                                     followers, lab_exec, measurer_running, run_on_lab, runs, timeline_lateness,
                                     xtalk_domains)

pytestmark = [pytest.mark.full, pytest.mark.xen, pytest.mark.slow, LAB_GROUP["arm64"]]


@pytest.mark.timing
def test_campaign_placements_credit2_dimension_and_timeline(arm64_lab, tmp_path):
    arch = arm64_lab
    spec, out = campaign(tmp_path, arch, duration=6, placements='["solo", "other-core", "same-core"]',
                         matrix='"backend.credit2_weight" = [128, 512]', timeline=TIMELINE)
    with DomZeroPace(arch) as pace:
        run_on_lab(spec, out, f"campaign of 6 runs on the {arch} lab")
    found = runs(out)
    assert len(found) == 6 and all(m["status"] == "pass" for m in found.values()), \
        {k: (m["status"], m["reason"]) for k, m in found.items()}
    for run_id, meta in found.items():
        bm = meta["backend_metadata"]
        assert bm["backend"] == "xen" and bm["xen_version"].startswith("4.17")
        assert bm["xen_scheduler"] == "credit2" and bm["schedulers_available"] == ["credit", "credit2"]
        assert "Pool-0" in bm["cpupools"] and bm["pool"] == "Pool-0"
        assert meta["sample_count"] > 0 and meta["lost_samples"] == 0
        weight = meta["config"]["backend.credit2_weight"]
        pins = {v["name"].rsplit("-", 1)[1]: v["hard_affinity"] for v in bm["vcpu_list"]}
        assert pins["measurer"] == "1"
        if meta["placement"] != "solo":
            assert pins["thrash"] == ("1" if meta["placement"] == "same-core" else "2")
        for guest, facts in bm["domains"].items():
            row = facts["sched_params"].splitlines()[-1].split()
            assert row[0] == facts["domain"] and int(row[2]) == weight, facts["sched_params"]
            assert f'cpus = "{facts["affinity"][0]}"' in facts["config"]
        run_dir = campaign_dir(out) / "runs" / run_id
        assert "XT END" in (run_dir / "xen-console-measurer.log").read_text()
        if meta["placement"] == "solo":
            assert [e for e in events(out, run_id) if e["kind"] == "timeline"] == [] and meta["stressors_watch"] == {}
        else:
            # t_s is when `xl pause/unpause` returned, with the watch's readings before and after it,
            # each an ssh call into the TCG lab: 0.45-0.84 s after the planned time on a quiet 2-core
            # AMD EPYC, 3.7-6.1 s on the same host on a noisier day (the other-core runs: three busy
            # vCPUs on two host cores starve dom0). That is the emulator's speed, so the bound is
            # what the event's dom0 commands take at the pace measured beside the campaign; xtalk's
            # own precision is test_cli_native's timeline test (20 ms)
            timeline_lateness(out, run_id, meta, [("pause", "thrash", 1.0), ("resume", "thrash", 2.5)], pace)
            watch = meta["stressors_watch"]["thrash"]  # from the domain's CPU time in `xl list`
            # each event is judged, or said to be unjudged (None): `xl list` over ssh into a busy
            # TCG lab can take longer than the 1.5 s between pause and resume
            # on its own pCPU nothing starves it; sharing the measurer's, credit2 in a busy TCG lab
            # once ran the measurer for 0.77 s on end (exposure 0.77): there, the watch must not
            # call it stalled
            least = 0.9 if meta["placement"] == "other-core" else STALL_EXPOSURE
            assert watch["exposure"] > least and [e["action"] for e in watch["timeline"]] == ["pause", "resume"], watch
            assert False not in [e["took_effect"] for e in watch["timeline"]], watch
    assert xtalk_domains(arch) == []


def test_crashed_and_failing_domains_are_destroyed_and_campaign_goes_on(arm64_lab, tmp_path):
    arch = arm64_lab
    # duration 20 s: the destroy below must find the measurer still running in a slow TCG lab
    # 4 GiB of keys: spec check lets it through (within qsort's range), the 64 MiB guest cannot
    spec, out = campaign(tmp_path, arch, duration=20, matrix='"measurer.params.size_kib" = [256, 4194304, 128]')
    proc = start("run", spec, "--out", out)
    try:
        # the first run's measurer: destroy it behind xtalk's back once it runs
        victim = measurer_running(arch, "the first measurer domain")
        lab_exec(arch, "xl", "destroy", victim)
        stdout, stderr = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 3, stderr  # runs failed: an infrastructure failure, the campaign went on
    found = runs(out)
    assert len(found) == 3, list(found)
    crashed = found["size_kib-256-r1"]
    assert crashed["status"] == "fail" and "without XT END" in crashed["reason"], crashed["reason"]
    bad = found["size_kib-4194304-r1"]
    assert bad["status"] == "fail" and "out of memory" in bad["reason"], bad["reason"]
    assert found["size_kib-128-r1"]["status"] == "pass"
    runs_dir = campaign_dir(out) / "runs"
    assert "XT BEGIN" in (runs_dir / "size_kib-256-r1" / "console" / "measurer.log").read_text()
    assert "out of memory" in (runs_dir / "size_kib-4194304-r1" / "xen-console-measurer.log").read_text()
    assert xtalk_domains(arch) == []


# sh -c ONCE_MEASURING sh RUN CMD...: once run RUN's measurer domain has printed XT BEGIN and its stressor
# domain (thrash) is there, CMD with the stressor domain as its last argument
ONCE_MEASURING = "; ".join((  # one line: xtalk lab exec refuses control characters in an argument
    "run=$1", "shift", "for i in $(seq 300)",
    "do names=$(xl list | awk 'NR > 1 {print $1}')",
    'm=$(echo "$names" | grep -e "^xtalk-.*-$run-measurer\\$" | head -n 1)', "t=${m%-measurer}-thrash",
    'if [ -n "$m" ] && echo "$names" | grep -qx -e "$t" && grep -q "XT BEGIN" "/var/log/xen/console/guest-$m.log" 2>/dev/null',
    'then exec "$@" "$t"', "fi", "sleep 0.2", "done",
    'echo "no measurer domain of $run printed XT BEGIN beside its stressor" >&2', "exit 1"))


def test_destroyed_paused_and_failing_stressor_domains_fail_their_runs(arm64_lab, tmp_path):
    """Stressors are watched like the measurer (src/xtalk/running/watch.py): one destroyed mid-run,
    one paused behind xtalk's back for the whole run, one out of memory at once."""
    arch = arm64_lab
    spec, out = campaign(tmp_path, arch, duration=6, placements='["same-core"]',
                         matrix='"stressors.thrash.params.size" = ["4m", "2m", "64g"]')
    proc = start("run", spec, "--out", out)
    try:
        # from dom0 itself, at once: a poll through `xtalk lab exec` takes seconds a call in the TCG lab, and
        # on a slower host its destroy came after the 6 s run had ended (the run passed)
        lab_exec(arch, "sh", "-c", ONCE_MEASURING, "sh", "r0", "xl", "destroy", timeout=400)
        frozen = wait_for(lambda: [d for d in xtalk_domains(arch) if d.endswith("-r1-thrash")], 120,
                          "the second run's stressor domain")[0]
        lab_exec(arch, "xl", "pause", frozen)  # Xen counts pauses: xtalk's unpause does not undo it
        _, stderr = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 3 and "3 of 3 runs did not pass" in stderr, stderr
    found = runs(out)
    destroyed, paused, failing = (found[f"size-{s}-r1"] for s in ("4m", "2m", "64g"))
    assert destroyed["status"] == "fail" and "stressor thrash exited" in destroyed["reason"], destroyed["reason"]
    assert destroyed["stressors_watch"]["thrash"]["alive"] is False
    assert paused["status"] == "fail" and "stressor thrash was stopped by someone else" in paused["reason"], \
        paused["reason"]
    assert failing["status"] == "fail" and "XT END status=fail (out of memory" in failing["reason"], failing["reason"]
    assert all(m["sample_count"] > 0 for m in found.values())  # the measurer's samples are kept
    report = json.loads(xtalk("report", "xq", "--out", out, "--json", "--no-samples", "--no-plots").stdout)
    warned = {w["scope"] for w in report["warnings"] if w["message"].startswith("run status fail: stressor thrash")}
    assert warned == set(found) and report["stats"] == [] and report["verdicts"] == []
    assert xtalk_domains(arch) == []


def test_a_cpupool_with_its_own_scheduler_is_made_and_given_back(arm64_lab, tmp_path):
    arch = arm64_lab
    spec, out = campaign(tmp_path, arch, backend='scheduler = "credit"\ncredit_weight = 384\ncredit_tslice_ms = 5')
    dom0_pins = dom0_affinities(arch)
    res = xtalk("run", spec, "--out", out, timeout=600)
    assert res.returncode == 0, res.stderr
    (meta,) = runs(out).values()
    assert meta["status"] == "pass", meta["reason"]
    bm = meta["backend_metadata"]
    facts = bm["domains"]["measurer"]
    assert facts["pool"].startswith("xtalk-") and facts["scheduler"] == "credit"
    assert int(facts["sched_params"].splitlines()[-1].split()[2]) == 384
    assert "tslice=5ms" in bm["sched"]["pool_params"]["pool_params"]
    assert extra_pools(arch) == []
    assert "1" in lab_exec(arch, "xl", "cpupool-list", "-c").split("Pool-0", 1)[1].split("\n")[0]
    assert dom0_affinities(arch) == dom0_pins  # Xen unpins a vCPU whose pCPU left its pool: pinned back


def dom0_affinities(arch: str) -> list[str]:
    """dom0's vCPUs with their hard affinity, as `xl vcpu-list` shows them."""
    return [" ".join(line.split()[2:3] + line.split()[-3:-2]) for line in
            lab_exec(arch, "xl", "vcpu-list", "Domain-0").splitlines()[1:]]


def test_a_scheduler_missing_from_the_build_fails_before_any_domain(arm64_lab, tmp_path):
    arch = arm64_lab
    spec, out = campaign(tmp_path, arch, backend='scheduler = "rtds"\nrtds_period_us = 10000\nrtds_budget_us = 4000')
    res = xtalk("run", spec, "--out", out, timeout=300)
    assert res.returncode == 2, res.stderr
    assert "backend.scheduler" in res.stderr and "'rtds'" in res.stderr
    assert "it offers: credit, credit2" in res.stderr
    assert not list(out.glob("*/runs/*"))  # no run was started, so no domain was created
    assert xtalk_domains(arch) == []
    assert extra_pools(arch) == []


def test_the_colouring_study_is_refused_before_any_domain_where_xen_does_not_colour(arm64_lab, tmp_path):
    """experiments/seed004_colouring.toml on the lab's Xen 4.17: its llc_colouring = true
    configurations cannot run, so nothing runs (the false ones would)."""
    arch = arm64_lab
    out = tmp_path / "out"
    res = xtalk("run", ROOT / "experiments" / "seed004_colouring.toml", "--set", "run.repetitions=1",
                "--out", out, timeout=300)
    assert res.returncode == 2, res.stderr
    assert "backend.llc_colors" in res.stderr and "LLC colouring needs Xen >= 4.20" in res.stderr, res.stderr
    assert not list(out.glob("*/runs/*"))
    res = xtalk("run", ROOT / "experiments" / "seed004_colouring.toml", "--set", "backend.xen.llc_colors.hog=[1]",
                "--out", out, timeout=300)
    assert res.returncode == 2 and "backend.llc_colors.hog: no domU of this campaign is called 'hog'" in res.stderr
    assert not list(out.glob("*/runs/*"))
    assert xtalk_domains(arch) == []


def test_a_measurer_that_never_reports_is_destroyed_and_its_run_fails(arm64_lab, tmp_path):
    arch = arm64_lab
    # 50 ms from `xl unpause` to XT BEGIN is impossible in the TCG lab: the run times out.
    spec, out = campaign(tmp_path, arch, boot_timeout=0.05)
    res = xtalk("run", spec, "--out", out, timeout=300)
    assert res.returncode == 3, res.stderr
    (meta,) = runs(out).values()
    assert meta["status"] == "fail" and "no XT BEGIN within boot_timeout_s" in meta["reason"], meta["reason"]
    run_dir = next(campaign_dir(out).glob("runs/*"))
    assert (run_dir / "xen-console-measurer.log").exists()  # kept, whatever the guest managed to print
    assert xtalk_domains(arch) == [] and followers(arch) == []


def quantile_of(out, run_id: str, q: float) -> float:
    import numpy as np
    import pyarrow.parquet as pq
    table = pq.read_table(campaign_dir(out) / "runs" / run_id / "samples.parquet", columns=["value"])
    return float(np.quantile(table.column("value").to_numpy(), q))


def test_linux_rt_domus_cyclictest_with_a_stress_ng_neighbour(arm64_lab, tmp_path):
    arch = arm64_lab
    spec, out = campaign(tmp_path, arch, duration=3, placements='["solo", "same-core"]', guests=LINUX_RT_GUESTS,
                         backend='image = "linux-rt"')
    run_on_lab(spec, out, f"Linux-RT campaign of 2 runs on the {arch} lab")
    found = check_linux_rt_runs(out, arch, "-rt-arm64")
    assert found["same-core-r1"]["backend_metadata"]["domains"]["stress"]["affinity"] == [1]
    # a CPU hog on the same pCPU delays the RT domU's timer wakeups by credit2's time slices, so
    # most of them land beyond the tail of the lab's own solo run: the p90 next to the hog is
    # above the solo run's p99 (10.3 ms against 0.66 ms on a quiet day; it was 3 x the solo p90,
    # a ratio tuned on one day: 8.5x, 12x and 35x measured, medians 1.48x to 40x)
    same_core, solo = quantile_of(out, "same-core-r1", 0.9), quantile_of(out, "solo-r1", 0.99)
    print(f"cyclictest p90 next to the hog {same_core / 1e3:.0f} us, solo p99 {solo / 1e3:.0f} us")
    assert same_core > solo


LOCK_GUESTS = """
[measurer]
bench = "lock"
vcpus = 2
params = { hold_us = 200, think_us = 200 }
"""  # held and between long enough that the TCG lab's spread runs stay inside the measurer's 8192
# sample slots (50 us each filled them once); stacked, ~100 handovers of a metric in 2 s


def test_two_vcpus_take_turns_on_a_lock_each_pinned_spread_and_stacked(arm64_lab, tmp_path):
    """A measurer with two vCPUs (issue 45): `vcpus = 2` with `cpus = ["1", "2"]` (spread) or
    `["1", "1"]` (stacked), each vCPU pinned to its own pCPU and checked; the lock bench on
    both, each vCPU's metrics stored apart; `xl vcpu-list` before the destroy shows that each
    vCPU ran, and where. Functional only: whether stacked hands over later than spread is
    emulation's to decide here (seen: handover medians ~0.5-50 us spread, ~10 ms stacked)."""
    import pyarrow.parquet as pq
    arch = arm64_lab
    spec, out = campaign(tmp_path, arch, guests=LOCK_GUESTS, matrix='"measurer.vcpu_placement" = ["spread", "stacked"]')
    run_on_lab(spec, out, f"two-vCPU lock campaign of 2 runs on the {arch} lab")
    found = runs(out)
    assert sorted(found) == ["vcpu_placement-spread-r1", "vcpu_placement-stacked-r1"]
    metrics = {f"lock_{m}_vcpu{v}" for m in ("acquire", "handover") for v in (0, 1)}
    for run_id, meta in found.items():
        assert meta["status"] == "pass", (run_id, meta["reason"])
        assert {m["name"] for m in meta["metrics"].values()} == metrics
        names = pq.read_table(campaign_dir(out) / "runs" / run_id / "samples.parquet", columns=["metric"])
        counts = {m: names.column("metric").to_pylist().count(m) for m in metrics}
        assert all(n > 0 for n in counts.values()), (run_id, counts)
        want = [1, 2] if meta["config"]["measurer.vcpu_placement"] == "spread" else [1, 1]
        facts = meta["backend_metadata"]["domains"]["measurer"]
        assert facts["affinity"] == want and "vcpus = 2\n" in facts["config"]
        assert f'cpus = ["{want[0]}", "{want[1]}"]' in facts["config"]
        assert [(v["vcpu"], v["hard_affinity"]) for v in facts["vcpus"]] == [(0, str(want[0])), (1, str(want[1]))]
        ran = facts["vcpus_at_stop"]  # each vCPU ran (CPU time), last on its own pCPU
        assert [(v["vcpu"], v["cpu"], v["hard_affinity"]) for v in ran] == \
            [(0, str(want[0]), str(want[0])), (1, str(want[1]), str(want[1]))], ran
        assert all(v["time_s"] > 0 for v in ran), ran
        assert meta["guests"]["measurer"]["vcpus_at_stop"] == ran
    assert xtalk_domains(arch) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_killing_xtalk_leaves_no_domain_or_pool_and_resume_finishes(arm64_lab, tmp_path, sig):
    arch = arm64_lab
    spec, out = campaign(tmp_path, arch, duration=10, backend='scheduler = "credit"')
    proc = start("run", spec, "--out", out)
    try:
        victim = measurer_running(arch)
        proc.send_signal(sig)
        code = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == (130 if sig == signal.SIGINT else -9), proc.stderr.read()
    (meta,) = runs(out).values()
    if sig == signal.SIGINT:  # stopped cleanly: everything it created is gone, the console kept
        assert meta["status"] == "interrupted"
        assert xtalk_domains(arch) == [] and extra_pools(arch) == [] and followers(arch) == []
        assert "XT BEGIN" in (campaign_dir(out) / "runs" / "solo-r1" / "xen-console-measurer.log").read_text()
    else:  # nothing could clean up: the next campaign on this dom0 does
        assert meta["status"] == "running"
        assert xtalk_domains(arch) == [victim] and extra_pools(arch) == [f"xtalk-{proc.pid}"]
    res = xtalk("run", spec, "--out", out, "--resume", "--json", timeout=600)
    assert res.returncode == 0, res.stderr
    meta = runs(out)["solo-r1"]
    assert meta["status"] == "pass", meta["reason"]
    assert json.loads(res.stdout)["passed"] == 1, res.stdout
    swept = meta["backend_metadata"]["swept_at_start"]
    assert swept == ({"domains": [], "cpupools": []} if sig == signal.SIGINT else
                     {"domains": [victim], "cpupools": [f"xtalk-{proc.pid}"]})
    assert xtalk_domains(arch) == [] and extra_pools(arch) == []


CREATIONS_A_DROP = 3


def creation_times(out) -> list[float]:
    """How long each domain creation of the campaign in `out` took so far (its guest_start's start_s)."""
    where = campaign_dir(out)
    found = []
    for path in where.glob("runs/*/events.jsonl") if where else []:
        for line in path.read_text().splitlines():
            if '"guest_start"' in line and line.endswith("}") and json.loads(line).get("start_s") is not None:
                found.append(json.loads(line)["start_s"])  # a domain's (a dom0 stressor has none)
    return found


def test_ssh_executor_tells_a_remote_failure_from_a_dropped_connection(arm64_lab):
    """Over ssh (with a shared master) status 255 means any of: the command exited 255, the
    remote shell was killed, or the master went away. The executor tells them apart. A
    claimed command (issue 44) whose master went away is asked again for its outcome, which
    dom0 kept: it ran once and its result comes back; a repeatable one (no claim) cut so is a
    TransportError, as is a claimed one whose own shell was killed (its outcome unknown)."""
    from concurrent.futures import ThreadPoolExecutor

    from xtalk.remote.executors import TransportError
    from xtalk.lab.vm import current

    ex = current(arm64_lab).executor()
    assert ex.run(["sh", "-c", "echo out; echo err >&2; exit 255"]).returncode == 255
    killed = ex.run(["sh", "-c", "kill -9 $$"])
    assert killed.returncode == 137  # 128 + SIGKILL, reported by the shell around it
    with pytest.raises(TransportError, match="started but ended without reporting.*stdout so far: partial"):
        ex.run(["sh", "-c", "echo partial; kill -9 $PPID"])  # the claiming shell itself dies
    with ThreadPoolExecutor(2) as pool:
        claimed = pool.submit(ex.run, ["sh", "-c", "sleep 6; echo slept"])
        repeatable = pool.submit(ex.run, ["sleep", "6"], repeatable=True)
        time.sleep(2)
        ex.close()  # `ssh -O exit`: the master connection and its sessions end
        with pytest.raises(TransportError, match="started but ended without reporting"):
            repeatable.result(timeout=15)
        slept = claimed.result(timeout=60)  # sent again, it waited for the first send's outcome
        assert (slept.returncode, slept.stdout) == (0, "slept\n") and ex.resends
    assert ex.run(["echo", "again"]).stdout == "again\n"  # a new master on the next command


def test_a_campaign_survives_the_ssh_master_connection_dropping(arm64_lab, tmp_path):
    """The shared ssh master is closed again and again during a campaign (what a flaky link to
    a board does): domain creation starts again from scratch, pause/unpause check the domain's
    state before repeating, read-only commands repeat; every run still passes.
    A creation sent again after a drop first destroys what the cut one made, and must fit
    between two drops (xtalk sends it twice): so the master is dropped every CREATIONS_A_DROP
    times the longest domain creation this lab has taken in the campaign (its start_s: 1.6-1.9 s
    on a quiet day, 7-9.4 s on a slow one; a fixed 10 s cut each run's second send that day),
    from the first creation on."""
    import subprocess
    import threading

    from xtalk.lab.vm import current

    control = current(arm64_lab).executor().control
    done = threading.Event()
    spec, out = campaign(tmp_path, arm64_lab, duration=6, placements='["solo", "other-core", "same-core"]',
                         timeline=TIMELINE)
    drops = []

    def drop_master():
        last = time.monotonic()
        while not done.wait(0.5):
            made = creation_times(out)
            if made and time.monotonic() - last >= CREATIONS_A_DROP * max(made):
                subprocess.run(["ssh", "-o", f"ControlPath={control}", "-O", "exit", "lab"], capture_output=True)
                last = time.monotonic()
                drops.append(round(CREATIONS_A_DROP * max(made), 1))

    killer = threading.Thread(target=drop_master)
    killer.start()
    try:
        run_on_lab(spec, out, "campaign with the ssh master dropped again and again")
    finally:
        done.set()
        killer.join()
    print(f"the master was dropped {len(drops)} times, every {drops} s")
    assert drops, "the master was never dropped"
    found = runs(out)
    assert [m["status"] for m in found.values()] == ["pass"] * 3, {k: m["reason"] for k, m in found.items()}
    failures = [f for m in found.values() for f in m["backend_metadata"].get("transport_failures", [])]
    print(f"{len(failures)} commands were cut by a dropped master and recovered:", *failures, sep="\n  ")
    assert all("started but ended without reporting" in f for f in failures)
    assert xtalk_domains(arm64_lab) == []


def test_a_lab_whose_dom0_stopped_answering_is_booted_again_before_the_next_test(arm64_lab):
    """The lab tests' health check (xen_lab.healthy, before each lab test): the lab's QEMU
    frozen (SIGSTOP: dom0 stops answering, as a dom0 that froze in a CI run did) is found
    within HEALTH_S, stopped and booted again, and the next test gets a dom0 that answers."""
    import os

    from tests.framework.cli import alive
    from tests.framework.xen_lab import dom0_silence, healthy
    from xtalk.lab.vm import current

    frozen = current(arm64_lab).state["pid"]
    os.kill(frozen, signal.SIGSTOP)
    try:
        with pytest.warns(UserWarning, match=r"dom0 did not run `true` within .* booted again"):
            assert healthy(arm64_lab) == arm64_lab
    finally:
        if alive(frozen):
            os.kill(frozen, signal.SIGCONT)
    assert not alive(frozen) and current(arm64_lab).state["pid"] != frozen
    assert dom0_silence(arm64_lab) is None
