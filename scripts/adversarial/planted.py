"""Files a user can hand xtalk that never end (issue 58's hangs): a FIFO no writer closes as
the spec (`spec check`, `run`), as the fleet file of `run --fleet`, as a stored run's
meta.json (`show --verify`, `list`) and as a search's settings; a run's events.jsonl made a
link to /dev/zero (`show --verify` hashed it forever); a spec of 40,000 unknown keys
(`spec check` was quadratic: past 60 s); a worker job read from /dev/zero (one line that never
ends). Each must end within its timeout, naming the file
(or the first unknown key), with exit 2 or 3.
"""
from __future__ import annotations

import os
from pathlib import Path

from harness import INFRA, OK, USAGE, XTALK, Case, area, spec
from integrity import RUN, base, run_file
from search_journal import journal_dir, search

case = area("planted")
LIMIT_S = 30  # each command's time before it counts as a hang


def fifo(path: Path) -> Path:
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    return path


@case("fifo-as-the-spec-of-spec-check")
def _(c: Case):
    path = fifo(c.dir / "spec.toml")
    c.says(c.xtalk("spec", "check", path, expect=(USAGE,), timeout=LIMIT_S), str(path), "FIFO")


@case("fifo-as-the-spec-of-run")
def _(c: Case):
    path = fifo(c.dir / "spec.toml")
    c.says(c.xtalk("run", path, "--out", c.out, expect=(USAGE,), timeout=LIMIT_S), str(path), "FIFO")


@case("fifo-as-the-fleet-file")
def _(c: Case):
    fleet = fifo(c.dir / "fleet.toml")
    res = c.xtalk("run", spec(c), "--out", c.out, "--fleet", fleet, expect=(USAGE,), timeout=LIMIT_S)
    c.says(res, str(fleet), "FIFO")


@case("fifo-as-a-runs-meta-json")
def _(c: Case):
    campaign = base(c)
    fifo(run_file(campaign, "meta.json"))
    c.says(c.xtalk("show", campaign, "--verify", expect=(INFRA,), timeout=LIMIT_S), RUN, "FIFO")
    c.says(c.xtalk("list", "--out", c.out, expect=(OK, INFRA), timeout=LIMIT_S), "FIFO")


@case("events-jsonl-a-link-to-dev-zero")
def _(c: Case):
    campaign = base(c)
    events = run_file(campaign, "events.jsonl")
    events.unlink()
    events.symlink_to("/dev/zero")
    c.says(c.xtalk("show", campaign, "--verify", expect=(INFRA,), timeout=LIMIT_S), "events.jsonl")


@case("fifo-as-the-search-settings")
def _(c: Case):
    journal_dir(c.out).mkdir(parents=True)
    fifo(journal_dir(c.out) / "settings.json")
    c.says(search(c, 1, expect=(USAGE,), timeout=LIMIT_S), "settings.json", "FIFO")


@case("spec-of-40000-unknown-keys")
def _(c: Case):
    path = spec(c)
    path.write_text(path.read_text() + "[analysis]\n" + "".join(f"unknown_key_{i} = {i}\n" for i in range(40_000)))
    c.says(c.xtalk("spec", "check", path, expect=(USAGE,), timeout=LIMIT_S), "unknown_key_0")


@case("worker-job-read-from-dev-zero")
def _(c: Case):
    res = c.xtalk(program=["bash", "-c", '"$0" worker < /dev/zero', str(XTALK)], expect=(USAGE,), timeout=LIMIT_S)
    c.says(res, "no valid job", "longer than")
