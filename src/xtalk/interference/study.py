"""`xtalk channels SPEC`: the channel study. One campaign over the spec's measurer (and
its `measurer.` matrix dimensions) and placements: the measurer alone, and next to each
interference channel's default stressor (interference/names.py), one configuration per
channel and placement, fresh runs each. The campaign keeps the study's plan in
campaign.json (`study`): which stressor stands for which channel, and every channel that
was not exercised with the reason. The analysis turns it into the report's "Interference
channels" table and evidence.json (analysis/interference.py, report/evidence.py).

Caveat: the stressors are the untuned defaults: a channel found quiet here may still
carry interference a tuned neighbour finds (`xtalk search`).
"""
from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ..backends.guest_memory import fitted_params
from ..plugins import backend_class
from ..running.derived import base, run_spec, stressors_first
from ..errors import Problem, SpecError
from ..host.metadata import host_facts
from ..spec.load import STRESSOR_DIM
from ..spec.run_caches import spec_caches, unanswered
from .names import BY_NAME, CHANNELS, Channel, why_not
from .reach import reach

PLACEMENTS = ("same-core", "other-core")


@dataclass(frozen=True)
class Settings:
    channels: tuple[str, ...] = ()      # empty: all
    placements: tuple[str, ...] = ()    # empty: the spec's non-solo placements, else both
    runs: int = 5
    duration_s: float = 2.0
    reach: bool = True                  # measure each stressor alone first (reach.py)


def stressor_hash(stressor: dict) -> str:
    """sha256 of the stressor's canonical JSON: the same configuration, the same hash."""
    text = json.dumps(stressor, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def plan_entry(name: str, channel: str, title: str, bench: str | None, params: dict,
               reason: str | None = None, role: str = "default", **placing) -> dict:
    """One row of a study's plan: the stressor `name` of the spec stands for `channel`
    (role "default": that channel's default stressor; "found": a search's worst neighbour);
    `placing`: the stressor's `host` and `instances` where they are not the defaults."""
    entry = {"name": name, "channel": channel, "title": title, "role": role, "tested": reason is None,
             "reason": reason}
    if bench is not None:
        stressor = {"bench": bench, "params": params, **placing}
        entry["stressor"] = {**stressor, "hash": stressor_hash(stressor)}
    return entry


def chosen(settings: Settings) -> list[Channel]:
    unknown = [c for c in settings.channels if c not in BY_NAME]
    if unknown:
        raise SpecError("channels", [Problem("--channel", f"unknown channel {u!r}; channels: "
                                                          f"{', '.join(BY_NAME)}") for u in unknown])
    return [BY_NAME[c] for c in settings.channels] if settings.channels else list(CHANNELS)


def placements(raw: dict, settings: Settings) -> list[str]:
    if settings.placements:
        return list(settings.placements)
    given = [p for p in (raw.get("matrix") or {}).get("placement", []) if p != "solo"]
    return given or list(PLACEMENTS)


def default_entry(c: Channel, kind: str, options: dict, caches: dict, vcpus: int = 1, **entry) -> dict:
    """Channel `c`'s default stressor as a plan entry: not tested where this backend cannot
    exercise it or its size needs a level `caches` lack (no shared level between the CPUs);
    sized down where a probe guest cannot hold its buffers (llc*2 of a large LLC), saying so
    (`sized`). `vcpus`: the measurer's. `entry`: plan_entry's role, and a title other than the channel's."""
    reason = why_not(c, kind, options, vcpus) or unanswered(c.params, caches)
    guests = not backend_class(kind).no_images
    params, sized = fitted_params(c.bench, dict(c.params), caches) if guests and reason is None else (c.params, None)
    title = entry.pop("title", c.title)
    return plan_entry(c.name, c.name, title, c.bench, dict(params), reason, **entry) | ({"sized": sized} if sized
                                                                                      else {})


def study_plan(spec, channels: list[Channel], caches: dict) -> list[dict]:
    """`caches`: what the runs' sizes resolve against (spec/run_caches.py)."""
    return [default_entry(c, spec.backend.kind, spec.backend.options, caches, spec.measurer.vcpus) for c in channels]


def measurer_dims(raw: dict) -> dict:
    """The user's matrix dimensions over the measurer: the study keeps them."""
    return {d: v for d, v in (raw.get("matrix") or {}).items() if d.startswith("measurer.")}


def study_spec(raw: dict, plan: list[dict], where: list[str], settings: Settings, suffix: str = "channels") -> dict:
    """The derived campaign: solo and every tested entry of `plan` at every placement."""
    spec = base(raw, f"{raw['name']}-{suffix}", settings.duration_s, settings.runs)
    tested = [e for e in plan if e["tested"]]
    spec["description"] = (f"xtalk {suffix}: {raw['name']}'s measurer alone and next to "
                           + ", ".join(f"{e['name']} ({e['stressor']['bench']})" for e in tested))
    spec["measurer"] = copy.deepcopy(raw["measurer"])
    # the user's deadlines and statistical rules hold for the study too (its baseline is solo)
    spec.update({k: copy.deepcopy(raw[k]) for k in ("deadlines",) if raw.get(k)})
    rules = {k: v for k, v in (raw.get("analysis") or {}).items() if k != "baseline"}
    if rules:
        spec["analysis"] = rules
    spec["stressors"] = [{"name": e["name"], **{k: v for k, v in e["stressor"].items() if k != "hash"}}
                         for e in tested]
    # the stressor first, set up: the measurer's window then sees the neighbour's steady state
    spec["matrix"] = {**measurer_dims(raw), "placement": ["solo", *where], STRESSOR_DIM: [e["name"] for e in tested]}
    return stressors_first(spec)


def study(spec, raw: dict, out: Path, settings: Settings) -> dict:
    """Run the channel study; the analysis of its campaign, and the plan."""
    plan = study_plan(spec, chosen(settings), spec_caches(spec, out, host_facts()))
    if not any(e["tested"] for e in plan):
        raise SpecError("channels", [Problem("--channel", "no chosen channel can be exercised here: " + "; ".join(
            f"{e['channel']}: {e['reason']}" for e in plan))])
    where = placements(raw, settings)
    for entry in plan if settings.reach else ():
        if entry["tested"]:
            entry["reach"] = reach(raw, entry, out, settings.duration_s)
    record = {"kind": "channels", "plan": plan, "placements": where}
    analysis = run_spec(study_spec(raw, plan, where, settings), out, "channel study", study=record)
    return {"analysis": analysis, "plan": plan, "campaign": analysis.store_path}
