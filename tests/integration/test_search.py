"""`xtalk search` as a user runs it, natively (and once on QEMU), at reduced size:
- a known answer: over the steal injector's length and period, the search converges to the
  largest stolen share its ranges allow, and the confirmation measures the share the
  injection implies;
- a neighbour that only sleeps ends "no channel above the noise floor", not a worst case;
- pointer_chase and qsort on the other core: the neighbour found is at least as bad as
  the best channel default, within the confirmation's interval;
- Ctrl-C stops it with every guest gone; the same command resumes it to the end;
- two workers on one OUT with lock directories of their own run the asked trials and one
  confirmation.
The closing note's figures come from experiments/search.toml at full size."""
from __future__ import annotations

import json
import os
import signal
import subprocess

import optuna
import pytest

from tests.framework.backends import NEEDS_QEMU
from tests.framework.cli import STARTED, XTALK, alive, guest_pids, start, wait_for, write_spec, xtalk
from tests.framework.specs import MEASURER_ONLY
from xtalk.analysis.search import NONE_ABOVE

QSORT = "params = { size_kib = 256 }"
STEAL_MAX_SHARE = 2000 / 4000  # the catalogue's steal ranges: steal_us [100, 2000], period_us [4000, 20000]


pytestmark = [pytest.mark.full,  # the long searches: make test-all
              pytest.mark.usefixtures("native_bench")]  # the native programs, built once


def spec(tmp_path, bench="qsort", params=QSORT, backend="native", name="s"):
    return write_spec(tmp_path, MEASURER_ONLY.format(name=name, backend=backend, bench=bench, rest=params))


def search(tmp_path, path, *args, timeout=900):
    res = xtalk("search", path, "--out", tmp_path / "out", "--json", *args, timeout=timeout)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout[res.stdout.index("{"):])


@pytest.mark.timing
def test_a_search_over_the_steal_finds_the_largest_share_and_measures_it(tmp_path):
    got = search(tmp_path, spec(tmp_path, "hidden_latency", ""), "--stressor", "steal", "--placement",
                 "same-core", "--trials", "16", "--runs", "2")
    found = got["outcome"]["found"]
    params = found["stressor"]["params"]
    injected = params["steal_us"] / params["period_us"]
    print(f"\nbest injected share {injected:.3f} (largest allowed {STEAL_MAX_SHARE}); measured "
          f"{found['change']:+.2f} points {found['change_ci']}")
    assert injected >= 0.8 * STEAL_MAX_SHARE, params
    report = json.loads(xtalk("report", got["campaign"], "--out", tmp_path / "out", "--json", "--no-samples", "--no-plots").stdout)
    alone = next(v for v in report["verdicts"] if v["config_id"] == found["config_id"])["reference_value"]
    # stolen time added = the injected share, plus one switch to the stealing thread and back per
    # steal, less the host's own interruptions (`alone`, a share of the CPU) that fall inside a steal
    # and so were stolen anyway (5.7 % of a 40 % share: 2.3 points, seen in CI)
    low = 100 * injected * (1 - alone) - 1
    assert low <= found["change"] <= 100 * (params["steal_us"] + 150) / params["period_us"] + 1, (low, alone)
    assert found["verdict"] == "interference"


@pytest.mark.timing
def test_a_neighbour_that_only_sleeps_is_no_channel_above_the_noise_floor(tmp_path):
    got = search(tmp_path, spec(tmp_path), "--stressor", "steal", "--tune", "steal.steal_us=0",
                 "--tune", "steal.period_us=1000..20000", "--trials", "5", "--runs", "2")
    outcome = got["outcome"]
    assert outcome["conclusion"].startswith(NONE_ABOVE), outcome
    assert outcome["found"]["verdict"] != "interference" and not outcome["above_noise"]


@pytest.mark.timing
@pytest.mark.parametrize("backend, bench, params", [
    ("native", "pointer_chase", ""),
    ("native", "qsort", QSORT),
    pytest.param("qemu", "qsort", QSORT, marks=[pytest.mark.slow, NEEDS_QEMU]),
])
def test_the_neighbour_found_is_at_least_as_bad_as_the_best_default(tmp_path, backend, bench, params):
    # sizes up to the LLC: each channel's default lies inside, and a guest zeroes no GiB buffers (test time)
    got = search(tmp_path, spec(tmp_path, bench, params, backend), "--channel", "llc", "l2", "--trials", "8",
                 "--runs", "2", "--tune", "cache_thrash.size=l1..llc", "--tune", "memcpy.size=l2..llc")
    vs = got["outcome"]["against_best_default"]
    print(f"\n{backend} {bench}: found over {got['outcome']['best_default']['channel']}: ×{vs['ratio']:.3f} "
          f"{vs['ratio_ci']} ({vs['verdict']})")
    # not significantly milder than the best default, or the same within the analysis's negligible change:
    # a near-tie (memcpy over 0.93 x LLC found, the membw default's over 1 x LLC: x0.993 [0.989, 0.998],
    # "no difference", in one run) is ordered by the search's 2-run trials and may flip in the confirmation
    assert vs["ratio_ci"][1] >= 1.0 or vs["verdict"] == "no-difference", vs
    toml = (tmp_path / "out" / "search" / "s" / "worst-neighbour.toml").read_text()
    assert "[[stressors]]" in toml and got["outcome"]["found"]["stressor"]["bench"] in toml


def trials(tmp_path) -> list:
    storage = optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(
        str(tmp_path / "out" / "search" / "s" / "journal.log")))
    return optuna.load_study(study_name="s", storage=storage).trials


def test_ctrl_c_stops_a_search_and_the_same_command_resumes_it(tmp_path):
    path = spec(tmp_path)
    args = ("search", path, "--out", tmp_path / "out", "--channel", "llc", "--trials", "4", "--runs", "2")
    proc = start(*args)
    out = tmp_path / "out"

    def in_a_trial():
        return [p for p in out.glob("s-search-s-t*/runs/*/meta.json")] if out.is_dir() else []
    wait_for(in_a_trial, 300, "a trial's first run")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    pids = {k: p for d in out.glob("s-search-*") for k, p in guest_pids(d).items()}
    assert pids and not [k for k, p in pids.items() if alive(p)]
    cut = [t for t in trials(tmp_path) if t.state == optuna.trial.TrialState.FAIL]
    assert len(cut) == 1, trials(tmp_path)
    res = xtalk(*args, timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    states = [t.state for t in trials(tmp_path)]
    finished = [s for s in states if s in (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)]
    assert len(finished) == 4 and optuna.trial.TrialState.RUNNING not in states, states
    assert len(list(out.glob("s-search-s-alone-*"))) == 1  # the measurer alone, measured once for the search
    assert list(out.glob("s-search-s-confirm-*/report/evidence.json"))


def test_two_workers_with_lock_directories_of_their_own_share_one_search(tmp_path):
    """The workers of a search coordinate through OUT/search/<name>/: each sees no CPU lease
    of the other (another XTALK_LOCK_DIR, as on another host), and together they finish
    `--trials 3` trials and run one confirmation, which the second says it takes."""
    args = [*XTALK, "search", str(spec(tmp_path)), "--out", str(tmp_path / "out"), "--channel", "llc",
            "--trials", "3", "--runs", "2", "--confirm-runs", "2"]
    procs = []
    for worker in ("a", "b"):
        (tmp_path / f"locks-{worker}").mkdir()
        env = {**os.environ, "XTALK_LOCK_DIR": str(tmp_path / f"locks-{worker}")}
        procs.append(subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
        STARTED.append(procs[-1])
    outs = [proc.communicate(timeout=600) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], [err[-3000:] for _, err in outs]
    states = [t.state for t in trials(tmp_path)]
    finished = [s for s in states if s in (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)]
    assert len(finished) == 3 and optuna.trial.TrialState.RUNNING not in states, states
    (confirmation,) = (tmp_path / "out").glob("s-search-s-confirm-*")
    assert ["confirmation already run by" in out for out, _ in outs].count(True) == 1, outs
    assert all(confirmation.name in out for out, _ in outs if "already run" in out)
