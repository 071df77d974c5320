"""Disk full, read-only and bad output directories: --out on a tmpfs too small for one
campaign, one that fills during a campaign (then grown, and the campaign resumed), a
read-only mount (empty, or holding a finished campaign to report on), a --out that is a
regular file or lies below one, and a report --dest on a full disk. Each must end with one
clear `xtalk: error:` line saying why (exit 3; 2 where the path given is no directory),
never a traceback; a resume after space is freed completes the campaign with nothing lost.
Needs mount(8) (root): without it the cases that need a mount say so and score nothing.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from harness import INFRA, OK, USAGE, Case, area, spec, wait_for
from store import check_complete, only_campaign, passed_now

from tests.framework.tmpfs import fill

case = area("disks")


def mounted(c: Case, size: str, read_only: bool = False, path: Path | None = None) -> Path | None:
    """A tmpfs of `size` at `path` (default the case's out/), unmounted when the case ends."""
    path = path or c.out
    path.mkdir(parents=True, exist_ok=True)
    opts = f"size={size}" + (",ro" if read_only else "")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        c.note(f"mount not possible here ({done.stderr.strip()}): not scored")
        return None
    c.cleanups.append(lambda: subprocess.run(["umount", "-l", str(path)], capture_output=True))
    return path


def remount(path: Path, opts: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{opts}", str(path)], check=True, capture_output=True)


def one_clear_error(c: Case, res, words: tuple[str, ...]) -> None:
    errors = [line for line in res.err.splitlines() if line.startswith("xtalk: error:")]
    c.check(len(errors) == 1, "wrong", f"{len(errors)} `xtalk: error:` lines: {res.err[-400:]}")
    c.check(any(w.lower() in res.err.lower() for w in words), "wrong", f"the error does not say {' or '.join(words)}: "
            f"{res.err[-300:]}")


@case("out-on-a-disk-too-small-for-a-campaign")
def _(c: Case):
    if mounted(c, "16k"):
        res = c.xtalk("run", spec(c), "--out", c.out, expect=(INFRA,))
        one_clear_error(c, res, ("disk full", "no space left"))


@case("disk-fills-during-a-campaign-then-resume")
def _(c: Case):
    """Filled (a file of zeros up to ENOSPC) once its second run passed; freed, then resumed."""
    if not mounted(c, "64m"):
        return
    path = spec(c, reps=6)
    proc = c.start("run", path, "--out", c.out)
    wait_for(lambda: proc.poll() is not None or len(passed_now(only_campaign(c.out) or c.out)) >= 2, 60, step=0.01)
    filler = c.out / "filler"
    subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k"], capture_output=True)
    res = c.finish(proc, expect=(INFRA,))
    one_clear_error(c, res, ("disk full", "no space left"))
    filler.unlink()
    campaign = only_campaign(c.out)
    c.xtalk("run", path, "--out", c.out, "--resume", expect=(OK,))
    if c.check(campaign is not None, "data lost", "no campaign stored before the disk filled"):
        check_complete(c, campaign)


@case("out-on-a-read-only-mount")
def _(c: Case):
    if mounted(c, "1m", read_only=True):
        res = c.xtalk("run", spec(c), "--out", c.out, expect=(INFRA,))
        one_clear_error(c, res, ("read-only",))


@case("report-of-a-campaign-on-a-read-only-mount")
def _(c: Case):
    if not mounted(c, "64m"):
        return
    c.xtalk("run", spec(c), "--out", c.out, expect=(OK,))
    remount(c.out, "ro")
    campaign = only_campaign(c.out)
    c.xtalk("show", campaign, "--verify", expect=(OK,))
    res = c.xtalk("report", campaign, expect=(INFRA,))
    one_clear_error(c, res, ("read-only",))


@case("report-dest-on-a-full-disk-keeps-the-previous")
def _(c: Case):
    disk = c.dir / "disk"
    dest = disk / "report"
    c.xtalk("run", spec(c), "--out", c.out, expect=(OK,))
    campaign = only_campaign(c.out)
    if not mounted(c, "4m", path=disk):
        return
    c.xtalk("report", campaign, "--dest", dest, "--no-samples", expect=(OK,))
    before = {p.relative_to(dest): p.read_bytes() for p in dest.rglob("*") if p.is_file()}
    subprocess.run(["dd", "if=/dev/zero", f"of={disk}/filler", "bs=64k"], capture_output=True)
    res = c.xtalk("report", campaign, "--dest", dest, "--no-samples", expect=(INFRA,))
    one_clear_error(c, res, ("disk full", "no space left"))
    after = {p.relative_to(dest): p.read_bytes() for p in dest.rglob("*") if p.is_file()}
    c.check(after == before, "data lost", "the previous report in --dest was changed by a report that failed")
    (disk / "filler").unlink()
    c.xtalk("report", campaign, "--dest", dest, "--no-samples", expect=(OK,))
    left = [p.name for p in disk.iterdir() if p.name != "report"]
    c.check(not left, "wrong", f"left next to the report after the next one: {left}")


@case("out-is-a-regular-file")
def _(c: Case):
    c.out.write_text("not a directory\n")
    res = c.xtalk("run", spec(c), "--out", c.out, expect=(USAGE, INFRA))
    one_clear_error(c, res, ("not a directory", "exists"))
    c.check(c.out.read_text() == "not a directory\n", "data lost", "the file given as --out was changed")


@case("out-below-a-regular-file")
def _(c: Case):
    (c.dir / "afile").write_text("x\n")
    res = c.xtalk("run", spec(c), "--out", c.dir / "afile" / "out", expect=(USAGE, INFRA))
    one_clear_error(c, res, ("not a directory",))


@case("import-append-on-a-full-disk")
def _(c: Case):
    """Issue 58: --append on a full disk left a run "running" and a 600 KB partial file."""
    if not mounted(c, "16m"):
        return
    log = c.dir / "lat.log"
    log.write_text("".join(f"lat: {i % 97}\n" for i in range(200_000)))
    args = ("--output", "regex", "--parser", r"sample='lat: (?P<value>\d+)'", "--parser", 'metric="lat"',
            "--out", c.out)
    c.xtalk("import", "imp", *args, "--config", "placement=solo", log, expect=(OK,))
    filler = fill(c.out, leave=4096)
    res = c.xtalk("import", "imp", *args, "--config", "placement=same-core", "--append", log, expect=(INFRA,))
    c.says(res, str(log), "--append")
    campaign = only_campaign(c.out)
    metas = [json.loads(p.read_text()) for p in campaign.glob("runs/*/meta.json")] if campaign else []
    alive = [m["run_id"] for m in metas if m.get("status") == "running"]
    c.check(not alive, "half-done", f"runs left 'running' after the failed import: {alive}")
    partial = [str(p) for p in campaign.glob("runs/same-core-*/samples.bin") if p.stat().st_size] if campaign else []
    c.check(not partial, "half-done", f"partial samples kept: {partial}")
    filler.unlink()  # with the space back, the same import goes on and the campaign verifies
    c.xtalk("import", "imp", *args, "--config", "placement=same-core", "--append", log, expect=(OK,))
    c.xtalk("show", campaign, "--verify", expect=(OK,))
