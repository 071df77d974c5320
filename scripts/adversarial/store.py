"""What the probe reads of a stored campaign, through xtalk's own commands where a user
would (`show --json`, `query --csv`, `show --verify`) and from the files only for what no
command says (leftover temporary files, reserved-but-unused disk blocks): the checks the
kill, integrity, disk and leftover areas share."""
from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
from pathlib import Path

from harness import INFRA, OK, Case

WASTE_LIMIT = 4 << 20  # reserved-but-unused bytes past a samples.bin's end that count as left behind
LEFTOVER = re.compile(r"^\..*\.(tmp|partial|old)$|\.partial$|\.tmp$")


def campaigns(out: Path) -> list[Path]:
    return sorted(p for p in out.iterdir() if (p / "campaign.json").is_file()) if out.is_dir() else []


def only_campaign(out: Path) -> Path | None:
    found = campaigns(out)
    return found[0] if len(found) == 1 else None


def planned(campaign: Path) -> list[str]:
    return json.loads((campaign / "campaign.json").read_text())["planned_runs"]


def metas(campaign: Path) -> dict[str, dict]:
    """Each run directory's meta.json as it reads now ({} where it does not read)."""
    found = {}
    for meta in (campaign / "runs").glob("*/meta.json"):
        try:
            found[meta.parent.name] = json.loads(meta.read_text())
        except (OSError, ValueError):
            found[meta.parent.name] = {}
    return found


def passed_now(campaign: Path) -> dict[str, int]:
    """{run: attempt} of the runs whose final record says pass (read straight from the files)."""
    return {run: m.get("attempt", 0) for run, m in metas(campaign).items()
            if ".attempt" not in run and m.get("status") == "pass"}


def query(c: Case, campaign: Path, sql: str, expect=(OK,)) -> list[dict] | None:
    res = c.xtalk("query", campaign, sql, "--csv", expect=expect)
    if res.rc != OK:
        return None
    return list(csv.DictReader(io.StringIO(res.out)))


def check_complete(c: Case, campaign: Path, before: dict[str, int] | None = None, verify=(OK,)) -> bool:
    """Every planned run stored exactly once and passed, no attempt duplicated, the runs
    that had passed (`before`: {run: attempt}) kept as they were, `show --verify` exit 0
    (or `verify`: 3 where a file of the campaign itself stays damaged)."""
    plan = planned(campaign)
    rows = query(c, campaign, "SELECT run_id, attempt, status, final FROM all_runs")
    ok = rows is not None
    if rows is not None:
        finals = [r["run_id"] for r in rows if r["final"].lower() == "true"]
        keys = [(r["run_id"], r["attempt"]) for r in rows]
        ok &= c.check(sorted(finals) == sorted(plan), "data lost",
                      f"{campaign.name}: final runs {sorted(finals)} are not the plan {sorted(plan)} once each")
        ok &= c.check(len(keys) == len(set(keys)), "data lost", f"{campaign.name}: an attempt stored twice: {keys}")
        status = {r["run_id"]: (r["status"], int(r["attempt"])) for r in rows if r["final"].lower() == "true"}
        bad = {r: s for r, (s, _) in status.items() if s != "pass"}
        ok &= c.check(not bad, "data lost", f"{campaign.name}: runs not passed at the end: {bad}")
        for run, attempt in (before or {}).items():
            ok &= c.check(status.get(run) == ("pass", attempt), "data lost", f"{campaign.name}: {run} had passed "
                          f"(attempt {attempt}) before the kill; now {status.get(run)}")
    verified = c.xtalk("show", campaign, "--verify", "--json", expect=verify)
    return ok and verified.rc in verify


def leftovers(campaign: Path) -> list[str]:
    """Temporary files and directories of a writer that is gone (.tmp, .partial, .old)."""
    return sorted(str(p.relative_to(campaign)) for p in campaign.rglob("*") if LEFTOVER.search(p.name))


def check_leftovers(c: Case, campaign: Path) -> None:
    left = leftovers(campaign)
    c.check(not left, "wrong", f"{campaign.name}: leftovers after the next command: {left}")


def reserved_waste(root: Path) -> list[tuple[str, int]]:
    """samples.bin files holding more than WASTE_LIMIT reserved blocks past their end."""
    waste = []
    for path in root.rglob("samples.bin"):
        st = path.lstat()
        if st.st_blocks * 512 - st.st_size > WASTE_LIMIT:
            waste.append((str(path.relative_to(root)), st.st_blocks * 512 - st.st_size))
    return waste


def check_waste(c: Case, root: Path) -> None:
    waste = reserved_waste(root)
    c.check(not waste, "wrong", "reserved but unused blocks left: " +
            ", ".join(f"{p} {w >> 20} MiB" for p, w in waste))


def copy_campaign(campaign: Path, out: Path) -> Path:
    """A copy of a stored campaign in `out`, mtimes kept (a case damages its own copy)."""
    out.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copytree(campaign, out / campaign.name, symlinks=True))


def with_mtime(path: Path, change) -> None:
    """Apply `change(path)` and give the file back its mtime (a change size-and-mtime misses)."""
    st = path.stat()
    change(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def flip_byte(path: Path, at: float = 0.5) -> None:
    data = bytearray(path.read_bytes())
    data[int(len(data) * at)] ^= 0x01
    path.write_bytes(bytes(data))


def damage_found(c: Case, campaign: Path, run: str, in_report: bool = True, column: str = "wrong") -> None:
    """The damaged `run` must make `show --verify` exit 3 naming it, and (`in_report`) be
    named by the report's warnings and left out of its statistics; else `column` is scored."""
    verified = c.xtalk("show", campaign, "--verify", expect=(INFRA,))
    c.check(run in verified.err, column, f"`show --verify` did not name the damaged {run}: "
            f"{verified.err.strip()[:300]}")
    if in_report:
        rep = c.xtalk("report", campaign, "--json", "--no-samples", expect=(OK, INFRA))
        try:
            warnings = json.loads(rep.out).get("warnings", [])
        except ValueError:
            c.flag("wrong", f"report --json printed no JSON: {rep.out[:200]}")
            return
        said = [w.get("message", "") for w in warnings if w.get("scope") == run]
        c.check(any(word in m for m in said for word in ("damaged", "missing", "corrupt")), column,
                f"the report's warnings do not say {run} is damaged")


def running_run(out: Path) -> str | None:
    """The run of a campaign in `out` whose record says it is running now, if any."""
    for campaign in campaigns(out):
        for run, meta in metas(campaign).items():
            if meta.get("status") == "running":
                return run
    return None


def run_spans(out: Path) -> list[tuple[float, float]]:
    """(start, end) in seconds since the epoch of every run stored in `out`'s campaigns."""
    from datetime import datetime
    spans = []
    for campaign in campaigns(out):
        for meta in metas(campaign).values():
            if meta.get("started_at") and meta.get("ended_at"):
                spans.append((datetime.fromisoformat(meta["started_at"]).timestamp(),
                              datetime.fromisoformat(meta["ended_at"]).timestamp()))
    return spans


def overlap(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> float:
    """Seconds for which a run of `a` and a run of `b` ran at once (0 when never)."""
    return sum(max(0.0, min(e1, e2) - max(s1, s2)) for s1, e1 in a for s2, e2 in b)
