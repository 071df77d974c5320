"""How the workers of one search (each `xtalk search` of the same --name on a shared OUT:
several on a host, or the hosts and boards of a fleet) coordinate: through files in the
search's own directory, OUT/search/<name>/, never the CPU leases' lock directory
(host/leases.py), which workers on other hosts or with another XTALK_LOCK_DIR do not see.

- `locked`: an exclusive flock on a file of that directory for a block: the solo runs
  measured once (engine.measure_alone), a trial asked (`next_trial`), the confirmation run
  once (confirm.confirmation);
- `next_trial`: a trial is asked only while the finished trials and those other workers
  are running are fewer than `trials`; while the running ones take the rest of the quota
  the worker waits for them to end (one failed: it asks another; all finished: it stops),
  so the workers together finish `trials` trials, not one more per worker;
- `fail_stale`: a trial left running by a worker of this host that is gone is failed.

Caveats: a worker is known gone only on its own host (by its pid): a trial of a worker on
another host that died stays running, and the others wait for it, saying so, until the
search is resumed on that host (which fails it), or Ctrl-C or --budget-min stops them. On a
file system shared by hosts, flock must reach across them (NFS v4 does; some FUSE mounts
lock per host only).
"""
from __future__ import annotations

import fcntl
import os
import socket
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import optuna

from ..signals import alive

STATES = optuna.trial.TrialState
ASK_LOCK = "ask.lock"
POLL_S = 1.0  # how often a worker waiting for other workers' trials looks again


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive flock on `path` (made where missing) for the block; waits for its holder."""
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def finished(study: optuna.Study) -> int:
    return len(study.get_trials(deepcopy=False, states=(STATES.COMPLETE, STATES.PRUNED)))


def fail_stale(study: optuna.Study) -> int:
    """Trials left running by a process of this host that is gone (Ctrl-C, a kill): failed."""
    host = socket.gethostname()
    stale = 0
    for t in study.get_trials(deepcopy=False, states=(STATES.RUNNING,)):
        owner = str(t.user_attrs.get("worker", ""))
        name, _, pid = owner.partition(":")
        if name == host and pid.isdigit() and not alive(int(pid)):
            study.tell(t.number, state=STATES.FAIL)
            stale += 1
    return stale


def next_trial(study: optuna.Study, directory: Path, trials: int, out_of_time: Callable[[], bool],
               say=print) -> optuna.Trial | None:
    """A new trial for this worker (its "worker" attribute set); None when the search has
    `trials` finished trials, or when `out_of_time()` while waiting for other workers'."""
    waiting_for: list[str] = []
    while True:
        with locked(directory / ASK_LOCK):
            stale = fail_stale(study)
            running = study.get_trials(deepcopy=False, states=(STATES.RUNNING,))
            if finished(study) + len(running) < trials:
                trial = study.ask()
                trial.set_user_attr("worker", worker_name())
                return trial
        if stale:
            say(f"search {directory.name}: {stale} trial(s) of a worker that is gone marked failed")
        if not running or out_of_time():
            return None
        now = [f"{t.number} ({t.user_attrs.get('worker', 'worker unknown')})" for t in running]
        if now != waiting_for:
            say(f"search {directory.name}: the other workers' running trials take the rest of the {trials}; "
                f"waiting for trial {', '.join(now)}")
            waiting_for = now
        time.sleep(POLL_S)
