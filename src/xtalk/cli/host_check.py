"""`xtalk host check [SPEC]`: the measurability check of analysis/measurability.py, run in
seconds before a campaign (like pyperf's `system check`): the CPUs a campaign would measure
on are watched while xtalk runs nothing there, and the busiest processes that may run on them
are named with their PIDs; the host facts that weaken a claim are listed. The reference's
run-to-run spread needs a campaign's runs: a report's "machine" line gives it.
Exit 0 when the machine can measure (or doubtfully), 1 when it cannot."""
from __future__ import annotations

import json

from ..analysis import measurability
from ..analysis.effects import Rules
from ..analysis.stability import host_flags
from ..host.metadata import host_facts
from ..host.noise import quiet_check
from ..report.terminal import STYLES
from .common import console, load_spec

def cpus_of(args) -> list[int]:
    if args.spec:
        spec, _, _ = load_spec(args.spec, args.overrides)
        return list(spec.cpus)
    return args.cpus or list(range(host_facts()["online_cpus"]))


def check_host(args) -> int:
    cpus = cpus_of(args)
    facts = host_facts()
    noise = quiet_check(cpus, args.seconds)
    # the CPUs watched as if a measurer ran on all of them: the busiest of them decides
    m = measurability.assess(facts, [{"measurer": {"cpus": cpus}, "noise": noise}], {}, [], {}, Rules(),
                             window=f"{args.seconds:g} s watch")
    notes = host_flags(facts)
    if args.json:
        print(json.dumps({"cpus": cpus, "seconds": args.seconds, "measurability": m, "noise": noise,
                          "notes": notes}, indent=1))
    else:
        out = console(markup=False)
        out.print(m["text"], style=STYLES.get(m["state"]), soft_wrap=True)
        for cpu, v in (noise.get("cpus") or {}).items():
            out.print(f"  CPU {cpu}: other work {v['foreign_pct']:g} % of {args.seconds:g} s", soft_wrap=True)
        for p in noise.get("busiest") or ():
            out.print(f"  PID {p['pid']} ({p['command']}): {p['cpu_s']:g} s of CPU ({p['pct']:g} %)", soft_wrap=True)
        for note in notes:
            out.print(f"  note: {note}", soft_wrap=True)
    return 1 if m["state"] == "cannot" else 0
