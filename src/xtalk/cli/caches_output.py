"""How `xtalk host caches` and `xtalk host show` print a measured cache hierarchy: each
level's measured size beside the size the machine reports, flagged where the two differ
by more than FLAG_X (spec/run_caches.py; calibration/caches.py measures, results/
platform.py keeps it), and first whether the machine could answer (calibration/
caches_machine.py): an answer it could not give is shown as not answered, with why and
the numbers measured."""
from __future__ import annotations

from rich.table import Table

from ..results.platform import caches_facts
from ..spec.run_caches import FLAG_X, differs
from ..spec.sizes import human


def _reported(record: dict, level: dict, last: bool) -> int | None:
    given = record["reported"]
    return given.get(f"l{level['level']}") or (given.get("llc") if last else None)


def level_text(record: dict, level: dict, last: bool) -> str:
    reported = _reported(record, level, last)
    test = level.get("sharing") or {}
    shared = {True: f"shared with CPU {record['cpus'][1]}", False: f"not shared with CPU {record['cpus'][1]}",
              None: "sharing not tested"}[level.get("shared_with_neighbour")]
    if test and 0 < test["shared_pairs"] < test["pairs"]:
        shared += f" in {test['shared_pairs']} of {test['pairs']} pairs"
    text = f"L{level['level']} {human(level['size_bytes'])} ({level['latency_ns']:g} ns, {shared})"
    if reported:
        text += f"; reported {human(reported)}"
        if differs(level["size_bytes"], reported):
            text += f" — differs more than {FLAG_X:g}x"
    return text


def not_answered(record: dict, answer: str) -> str | None:
    """Why `answer` (caches_machine.ANSWERS) is not given, None where it is."""
    return (record.get("voided") or {}).get(answer)


def caches_rows(out, hostname: str) -> list[tuple[str, str]]:
    """`xtalk host show`'s rows: one per platform measured on this host."""
    rows = []
    for record in caches_facts(out, hostname):
        if record:
            levels = record["levels"]
            text = "; ".join(level_text(record, lv, i == len(levels) - 1) for i, lv in enumerate(levels))
            rows.append((f"caches measured ({record['platform']}, {record['measured_at'][:10]})",
                         (f"not answered (the machine could not; measured {text})" if text and
                          not_answered(record, "levels") else text) or "no level found"))
    return rows


def line_text(record: dict) -> str:
    """The line size, or why it is not answered with what was measured."""
    found = record.get("line") or {}
    reported = f"reported {record['reported_line_bytes']} B" if record.get("reported_line_bytes") else ""
    if record.get("line_bytes"):
        runs = [r["bytes"] for r in found.get("runs") or ()]
        return f"{record['line_bytes']} B" + (f" ({reported})" if reported else "") + (
            f"; each of the {len(runs)} runs of the line test said so" if len(runs) > 1 else "")
    measured = found.get("measured_bytes")
    return ("not answered" + (f" (measured {measured} B, {reported})" if measured else f" ({reported})" if reported
                              else "") + f": {found.get('why') or 'no line test ran'}")


def print_machine(out, record: dict) -> None:
    m = record.get("machine") or {}
    if m:
        out.print(f"machine: {m['text']}", soft_wrap=True)
    for answer, why in (record.get("voided") or {}).items():
        if answer != "line":  # the line's own line says why
            out.print(f"not answered: {why}", soft_wrap=True)


def print_caches(out, record: dict) -> None:
    guest = record["backend"] != "native"
    print_machine(out, record)
    unsure = " — not answered, the machine could not (above): what was measured" if not_answered(record, "levels") \
        else ""
    table = Table(title=f"caches on {record['platform']}: {record['cpu_model']}, CPU {record['cpus'][0]} "
                        f"(neighbour CPU {record['cpus'][1]}){unsure}")
    sharing = f"shared with CPU {record['cpus'][1]}" + (" (not answered)" if not_answered(record, "sharing") else "")
    for col in ("level", "measured", "latency", sharing, "reported", ""):
        table.add_column(col)
    levels = record["levels"]
    for i, level in enumerate(levels):
        reported = _reported(record, level, i == len(levels) - 1)
        test = level.get("sharing") or {}
        shared = {True: "yes", False: "no", None: "not tested"}[level.get("shared_with_neighbour")]
        if test:
            shared += (f" ({test['shared_pairs']} of {test['pairs']} pairs; x"
                       + ", x".join(f"{r:g}" for r in test["ratios"]) + ")")
        table.add_row(f"L{level['level']}", human(level["size_bytes"]), f"{level['latency_ns']:g} ns", shared,
                      human(reported) if reported else "—",
                      f"differs more than {FLAG_X:g}x" if reported and differs(level["size_bytes"], reported) else "")
    out.print(table)
    memory = f"{record['memory_ns']:g} ns" if record["memory_ns"] else "not reached (the curve ended first)"
    out.print(f"memory latency{' (not answered: measured)' if not_answered(record, 'levels') else ''}: {memory}")
    out.print(f"line size: {line_text(record)}", soft_wrap=True)
    bw = record.get("bandwidth") or {}
    if bw.get("one_cpu_bytes_s"):
        out.print(f"memory bandwidth{' (not answered: measured)' if not_answered(record, 'bandwidth') else ''}: "
                  f"one CPU reading {bw['one_cpu_bytes_s'] / 1e9:.1f} GB/s alone, "
                  f"{(bw.get('one_cpu_beside_copy_bytes_s') or 0) / 1e9:.1f} GB/s while the others copy; all CPUs "
                  f"of the run together {(bw.get('all_cpus_bytes_s') or 0) / 1e9:.1f} GB/s")
    if guest:
        out.print("in a guest: the reported sizes are the host's (what xtalk gives its probe guests); the CPU's "
                  "cache registers there show what the hypervisor chose", soft_wrap=True)
    out.print(f"kept: {record['path']} (campaigns {', '.join(record['campaigns'])})", soft_wrap=True)
