"""What each stressor of a study reaches alone on this host and backend: the stressor's
bench run as the measurer (role measurer: one sample per pass), alone, for two short
runs; its pressure there = work per pass x passes / the measured window (XT META
work_per_pass, window_ticks_0; the same units as a stressor's achieved pressure,
xtalk/pressure.py). The channel table then says how hard each neighbour loaded its
resource next to the measurer, as a share of that.

Caveat: alone means on its own CPU with nothing beside it; next to the measurer on the
same core it gets about half the CPU, so about 50 % there is the expected figure, not a
weak stressor. A bench that states no work per pass, or a host stressor (steal), has no
reach (`reason`).
A stressor's pass can be long (a copy of twice a large LLC in a slow guest), and as the
measurer the run ends only after its pass: these runs get PASS_GRACE_S after their
duration (or the spec's grace_s where longer), and `reach` says so (`grace_s`).
"""
from __future__ import annotations

import copy
from pathlib import Path

from ..running.derived import base, run_spec
from ..spec import catalogue

RUNS = 2
PASS_GRACE_S = 60.0  # s after duration_s for the pass under way to end


def reach_spec(raw: dict, entry: dict, duration_s: float) -> dict:
    spec = base(raw, f"{raw['name']}-reach-{entry['name']}", duration_s, RUNS)
    spec["description"] = f"xtalk channels: what {entry['stressor']['bench']} reaches alone (its passes timed)"
    spec["measurer"] = {"bench": entry["stressor"]["bench"], "params": copy.deepcopy(entry["stressor"]["params"])}
    spec["run"]["grace_s"] = max(spec["run"].get("grace_s", 0.0), PASS_GRACE_S)
    return spec


def rate_of(meta: dict) -> tuple[float, str] | None:
    """The pressure one run of a stressor bench as the measurer reached: (rate, unit)."""
    guest = meta.get("guest_meta") or {}
    work, unit, window = guest.get("work_per_pass"), guest.get("work_unit"), guest.get("window_ticks_0")
    if not (work and unit and window and meta.get("sample_count") and meta.get("freq_hz")):
        return None
    return int(work) * meta["sample_count"] * meta["freq_hz"] / int(window), f"{unit}/s"


def reach(raw: dict, entry: dict, out: Path, duration_s: float) -> dict:
    stressor = entry["stressor"]
    if stressor.get("host") or catalogue.load().bench(stressor["bench"], ("probe",)) is None:
        return {"rate": None, "reason": f"{stressor['bench']} is not a probe bench: it times no passes"}
    named = " ".join([stressor["bench"], *(f"{k}={v}" for k, v in stressor.get("params", {}).items())])
    derived = reach_spec(raw, entry, duration_s)
    analysis = run_spec(derived, out, f"the {entry['channel']} channel's stressor alone ({named})")
    rates = [r for r in map(rate_of, analysis.used_runs) if r]
    if not rates:
        return {"rate": None, "reason": f"{stressor['bench']} states no work per pass"}
    return {"rate": sum(r for r, _ in rates) / len(rates), "unit": rates[0][1], "runs": len(rates),
            "campaign": analysis.result["campaign"]["id"], "grace_s": derived["run"]["grace_s"]}
