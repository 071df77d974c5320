"""Leases (src/xtalk/host/leases.py): lock files and lock directories planted or tampered
with. A lease file that is a symlink (to a root-only file, dangling), a FIFO or a
directory; a lock directory that is a symlink, a file, world-writable without the sticky
bit, or another user's; lease files deleted or replaced under a running campaign (a second
campaign must still be refused, and with --wait run after it, never beside it); a stale
lease of a dead xtalk and a SIGKILLed holder (taken); a resume of a running campaign; and a
symlink planted in the default lock directory itself (XTALK_LOCK_DIR unset; removed after).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from pathlib import Path

from harness import OK, USAGE, Case, area, kill_only, spec, wait_for
from store import campaigns, only_campaign, overlap, run_spans, running_run

case = area("leases")


def secret(c: Case) -> Path:
    path = c.dir / "root-only-secret"
    path.write_text("do not truncate me\n")
    path.chmod(0o600)
    return path


def refused(c: Case, lock_dir: Path | None = None, words: str = "", **env) -> None:
    """A campaign run with this lock directory must be refused (exit 2) before it runs."""
    e = c.env(**({"XTALK_LOCK_DIR": str(lock_dir)} if lock_dir else {}), **env)
    res = c.xtalk("run", spec(c), "--out", c.out, expect=(USAGE,), env=e, timeout=60)
    if words:
        c.check(words in res.err, "wrong", f"the refusal does not say {words!r}: {res.err.strip()[:300]}")
    c.check(not any(c.out.glob("*/runs/*")), "wrong", "a run was started although the lease was refused")


@case("lease-symlink-to-root-only-file")
def _(c: Case):
    target = secret(c)
    (c.locks / "cpu0.lock").symlink_to(target)
    refused(c, words="symbolic link")
    c.check(target.read_text() == "do not truncate me\n" and stat.S_IMODE(target.stat().st_mode) == 0o600,
            "data lost", f"the file the planted symlink points to was changed: {target.read_text()[:80]!r}")


@case("lease-symlink-dangling")
def _(c: Case):
    target = c.dir / "created-through-symlink"
    (c.locks / "cpu0.lock").symlink_to(target)
    refused(c, words="symbolic link")
    c.check(not target.exists(), "wrong", f"xtalk created {target} through the planted symlink")


@case("lease-file-is-a-fifo")
def _(c: Case):
    os.mkfifo(c.locks / "cpu0.lock")
    refused(c, words="not a regular file")


@case("lease-file-is-a-directory")
def _(c: Case):
    (c.locks / "cpu0.lock").mkdir()
    refused(c)


@case("lock-dir-is-a-symlink")
def _(c: Case):
    link = c.dir / "locks-link"
    link.symlink_to(c.locks)
    refused(c, link, words="symbolic link")


@case("lock-dir-world-writable-without-sticky-bit")
def _(c: Case):
    c.locks.chmod(0o777)
    refused(c, words="sticky")


@case("lock-dir-owned-by-another-user")
def _(c: Case):
    os.chown(c.locks, 65534, 65534)
    c.cleanups.append(lambda: os.chown(c.locks, os.geteuid(), os.getegid()))
    refused(c, words="another user")


@case("lock-dir-is-a-regular-file")
def _(c: Case):
    path = c.dir / "locks-file"
    path.write_text("not a directory\n")
    refused(c, path)
    c.check(path.read_text() == "not a directory\n", "data lost", "the file given as lock directory was changed")


def long_campaign(c: Case, name: str = "holder", out: Path | None = None):
    """A campaign of 4 one-second solo runs, started and waited for until it measures."""
    proc = c.start("run", spec(c, name=name, reps=4, duration=1.0, placements=("solo",), file=f"{name}.toml"),
                   "--out", out or c.out)
    if not wait_for(lambda: running_run(out or c.out) and any(c.locks.glob("cpu*.lock")), 30):
        c.note("the first campaign never started measuring")
    return proc


def second(c: Case, *extra: str, expect=(USAGE,), timeout: float = 60):
    out = c.dir / "out2"
    res = c.xtalk("run", spec(c, name="second", placements=("solo",), file="second.toml"), "--out", out, *extra,
                  expect=expect, timeout=timeout)
    return res, out


def tampered_leases(c: Case, tamper) -> None:
    first = long_campaign(c)
    tamper(list(c.locks.iterdir()))
    res, out2 = second(c)
    c.check(str(first.pid) in res.err, "wrong", f"the refusal does not name the holder's PID {first.pid}: "
            f"{res.err.strip()[:300]}")
    c.finish(first, expect=(OK,), timeout=60)
    shared = overlap(run_spans(c.out), run_spans(out2))
    c.check(shared == 0, "wrong", f"the two campaigns measured on the same CPUs at once for {shared:.2f} s")


@case("lease-files-deleted-under-a-running-campaign")
def _(c: Case):
    tampered_leases(c, lambda files: [f.unlink() for f in files])


@case("lease-files-deleted-then-a-waiting-campaign-waits")
def _(c: Case):
    first = long_campaign(c)
    for f in list(c.locks.iterdir()):
        f.unlink()
    res, out2 = second(c, "--wait", expect=(OK,), timeout=90)
    c.finish(first, expect=(OK,), timeout=60)
    shared = overlap(run_spans(c.out), run_spans(out2))
    c.check(shared == 0, "wrong", f"the two campaigns measured on the same CPUs at once for {shared:.2f} s")


@case("lease-files-replaced-under-a-running-campaign")
def _(c: Case):
    def replace(files):
        for f in files:
            f.unlink()
            f.write_text(json.dumps({"pid": 1, "campaign": "imposter", "where": "nowhere"}))
    tampered_leases(c, replace)


@case("second-campaign-with-wait-runs-after-not-beside")
def _(c: Case):
    first = long_campaign(c)
    res, out2 = second(c, "--wait", expect=(OK,), timeout=90)
    c.finish(first, expect=(OK,), timeout=60)
    shared = overlap(run_spans(c.out), run_spans(out2))
    c.check(shared == 0, "wrong", f"the waiting campaign measured beside the first for {shared:.2f} s")
    c.check(bool(run_spans(out2)), "wrong", "the waiting campaign stored no run")


@case("resume-of-a-running-campaign-is-refused")
def _(c: Case):
    first = long_campaign(c)
    c.xtalk("run", c.dir / "holder.toml", "--out", c.out, "--resume", expect=(USAGE,), timeout=60)
    c.finish(first, expect=(OK,), timeout=60)
    c.check(len(campaigns(c.out)) == 1, "data lost", f"campaigns now: {[p.name for p in campaigns(c.out)]}")


@case("stale-lease-of-a-dead-xtalk-is-taken")
def _(c: Case):
    for cpu in (0, 1):
        (c.locks / f"cpu{cpu}.lock").write_text(json.dumps({"pid": 4194000 + cpu, "campaign": "dead", "where": "x"}))
    c.xtalk("run", spec(c), "--out", c.out, expect=(OK,), timeout=90)


@case("sigkilled-holder-gives-its-leases-back")
def _(c: Case):
    first = long_campaign(c)
    kill_only(first)
    c.finish(first, expect=(-9,), timeout=5)
    second(c, expect=(OK,), timeout=90)


@case("default-lock-dir-symlink-planted-for-the-campaign")
def _(c: Case):
    """XTALK_LOCK_DIR unset: the default directory (/run/lock/xtalk for root). A symlink
    planted there for this case's own campaign directory lease must be refused, not followed."""
    c.xtalk("run", spec(c, placements=("solo",)), "--out", c.out, expect=(OK,), timeout=90)
    campaign = only_campaign(c.out)
    name = f"campaign-{hashlib.sha256(str(campaign.resolve()).encode()).hexdigest()[:16]}.lock"  # directory_lease()
    default = Path("/run/lock/xtalk") if os.access("/run/lock", os.W_OK) else None
    if default is None:
        c.note("no writable /run/lock: case not possible here")
        return
    existed = default.exists()
    default.mkdir(mode=0o1777, exist_ok=True)
    if not existed:
        default.chmod(0o1777)
    mode = stat.S_IMODE(default.stat().st_mode)
    planted, target = default / name, secret(c)
    planted.symlink_to(target)
    c.cleanups.append(lambda: planted.unlink(missing_ok=True))
    if not existed:
        c.cleanups.append(lambda: shutil.rmtree(default, ignore_errors=True) if not any(default.iterdir()) else None)
    c.xtalk("run", c.dir / "spec.toml", "--out", c.out, "--resume", expect=(USAGE,), timeout=60,
            env=c.env(XTALK_LOCK_DIR=None))
    c.check(target.read_text() == "do not truncate me\n", "data lost", "the planted symlink's target was changed")
    c.check(not mode & 0o002 or mode & stat.S_ISVTX, "wrong", f"{default} is writable by all without the sticky bit "
            f"(mode {mode:o})")
