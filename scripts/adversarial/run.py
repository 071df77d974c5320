"""The adversarial probe of issues 43 ("Nothing trusted that can lie") and 58 ("Nothing written
outside its directory"): 168 cases that each set up hostile inputs (planted symlinks and hard
links, names with ../.., lying cache files, torn journals, edited and downgraded runs, FIFOs
and endless imports, SIGKILLs, full disks, escape sequences) and run the real `xtalk`
command as a user would, scoring every column of harness.COLUMNS (harness.py says how each
is decided).

  .venv/bin/python scripts/adversarial/run.py --work /tmp/probe [--area NAME] [--json FILE]

Every case works in its own directory under --work (its OUT, lock directory and cache
directory: XTALK_LOCK_DIR and XTALK_CACHE), so the user's caches and leases are not
touched (but for the one lease case about the default lock directory, which restores it).
Prints the counts per area and in total, the cases aimed at each defect class (AIMS) with
the cases that scored it, then one line per case with a non-zero column.
Exit 0 when every column but 'cases' is 0, else 1.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[2]))  # tests.framework's helpers, shared with the tests

import harness  # noqa: E402
from harness import COLUMNS, REGISTRY, run_case, visible  # noqa: E402

AREAS = ["leases", "kept_facts", "search_journal", "process_trees", "integrity", "imports", "kills", "disks",
         "escapes", "leftovers", "outside", "downgrades", "planted", "words"]
# the defects each area's cases are set up to provoke (every case scores every column)
AIMS = {"leases": ("links followed", "hangs", "unclear errors"), "kept_facts": ("links followed", "hangs", "wrong"),
        "search_journal": ("links followed", "hangs", "half-done", "unclear errors"), "process_trees": ("orphans",),
        "integrity": ("changes undetected", "data lost"), "imports": ("hangs", "links followed", "tracebacks"),
        "kills": ("data lost", "half-done", "orphans"), "disks": ("half-done", "data lost"),
        "escapes": ("control bytes",), "leftovers": ("half-done",), "outside": ("writes outside", "links followed"),
        "downgrades": ("changes undetected",), "planted": ("hangs",), "words": ("unclear errors",)}


def table(verdicts) -> list[str]:
    heads = ["area", "cases", *COLUMNS]
    rows = []
    for name in [a for a in AREAS if any(v.area == a for v in verdicts)] + ["total"]:
        mine = [v for v in verdicts if name in ("total", v.area)]
        rows.append([name, str(len(mine)), *(str(sum(1 for v in mine if v.flags[c])) for c in COLUMNS)])
    widths = [max(len(r[i]) for r in [heads, *rows]) for i in range(len(heads))]

    def fmt(r):
        return "  ".join(x.ljust(w) if i == 0 else x.rjust(w) for i, (x, w) in enumerate(zip(r, widths)))
    return [fmt(heads), fmt(["-" * w for w in widths]), *map(fmt, rows[:-1]), fmt(["-" * w for w in widths]),
            fmt(rows[-1])]


def per_class(verdicts) -> list[str]:
    """Per defect class: the cases aimed at it (AIMS) and the cases, of all, that scored it."""
    width = max(map(len, COLUMNS))
    lines = [f"{'class':{width}}  aimed at it  found"]
    for column in COLUMNS:
        aimed = sum(1 for v in verdicts if column in AIMS.get(v.area, ()))
        lines.append(f"{column:{width}}  {aimed:11d}  {sum(1 for v in verdicts if v.flags[column]):5d}")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, required=True, help="a directory for the cases' files (kept afterwards)")
    ap.add_argument("--area", action="append", choices=AREAS, help="only this area (repeatable)")
    ap.add_argument("--case", action="append", help="only cases whose name contains this (repeatable)")
    ap.add_argument("--json", type=Path, help="write the table and every case's result as JSON here")
    args = ap.parse_args()
    if not harness.XTALK.exists() or not harness.BENCH.exists():
        print(f"needs {harness.XTALK} and {harness.BENCH} (make native)", file=sys.stderr)
        return 2
    areas = args.area or AREAS
    for name in areas:
        __import__(name)
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    verdicts, t0 = [], time.monotonic()
    for name in areas:
        for case_name, fn in REGISTRY[name]:
            if args.case and not any(part in case_name for part in args.case):
                continue
            v = run_case(name, case_name, fn, work)
            verdicts.append(v)
            bad = [c for c in COLUMNS if v.flags[c]]
            print(f"{name:15} {case_name:48} {v.secs:6.1f}s  {', '.join(bad) or 'ok'}", flush=True)
    lines = table(verdicts)
    print(f"\n{len(verdicts)} cases in {time.monotonic() - t0:.0f} s\n")
    print("\n".join(lines))
    lines += ["", *per_class(verdicts)]
    print("\n" + "\n".join(per_class(verdicts)))
    bad = [v for v in verdicts if any(v.flags.values())]
    if bad:
        print("\ncases with a non-zero column:")
    for v in bad:
        cols = [c for c in COLUMNS if v.flags[c]]
        print(f"- {v.area}/{v.name} [{', '.join(cols)}]" + (f" (note: {v.note})" if v.note else ""))
        for c in cols:
            for why in v.flags[c]:
                print(f"    {c}: {visible(why, 1200)}")
    if args.json:
        args.json.write_text(json.dumps({"table": lines, "work": str(work),
                                         "cases": [v.row() for v in verdicts]}, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
