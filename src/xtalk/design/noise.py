"""The noise of one unit on this host, where a stored campaign measured it: in the newest
stored campaign of this spec (by name), or of its calibrate A/A campaign
(`<name>-calibrate-aa`), on this host (hostname) with the same backend and measurer, the
spread of the primary statistic over the solo runs (a run's value) and over the on/off
cycles of a configuration whose timeline switched a stressor (a cycle's difference, as
analysis/paired.py forms it). It turns the design check's "detects k sd" into a change
in % (or points); the time its runs took beyond duration_s replaces the design check's
guess of a run's boot and teardown.
Caveats: one campaign's runs give the spread, not the drift between campaigns
(analysis/levels.py); a cycle's difference holds the stressor's own variation too; a spec
whose name changed finds nothing.
"""
from __future__ import annotations

import platform
import statistics
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..analysis import windows
from ..spec.model import Campaign

if TYPE_CHECKING:
    from ..results.store import CampaignStore


@dataclass(frozen=True)
class Noise:
    """The spread of one run's value of a metric's primary statistic (analysis scale)."""

    metric: str
    statistic: str
    sd: float
    scale: str
    reference: float      # the runs' typical value, for a change on the "diff" scale
    units: int
    unit_word: str        # runs (a reference run's value) | windows (a window's on/off difference)
    source: str           # the campaign measured
    config: dict          # the dimension values of the configuration measured

    def change_pct(self, sds: float) -> float | None:
        """A change of `sds` standard deviations in % of the reference value."""
        from ..analysis.kinds import to_pct
        return to_pct(sds * self.sd, self.scale, self.reference)


def _same_setup(store: CampaignStore, spec: Campaign, host: str) -> bool:
    info = store.info
    stored = info.get("spec") or {}
    return (info.get("name") in (spec.name, f"{spec.name}-calibrate-aa")
            and (info.get("host") or {}).get("hostname") == host
            and (stored.get("backend") or {}).get("kind", "native") == spec.backend.kind
            and (stored.get("measurer") or {}).get("bench") == spec.measurer.bench)


def newest_measured(out: Path, spec: Campaign) -> CampaignStore | None:
    """The newest stored campaign of this spec's setup, None where none (the results
    store's code imported only where there is a results directory)."""
    if not Path(out).is_dir():
        return None
    from ..results.store import catalog
    host = platform.node()
    found = [s for s in catalog(Path(out))[0] if _same_setup(s, spec, host)]
    return max(found, key=lambda s: s.info.get("created_at", ""), default=None)


def overhead_s(store: CampaignStore) -> float | None:
    """The median time a passed run of a stored campaign took beyond its duration_s
    (start, boot, teardown), or None without such runs."""
    extra = []
    for meta in store.runs():
        try:
            wall = (datetime.fromisoformat(meta["ended_at"]) - datetime.fromisoformat(meta["started_at"]))
        except (KeyError, TypeError, ValueError):
            continue
        if meta.get("status") == "pass" and meta.get("duration_s") is not None:
            extra.append(max(0.0, wall.total_seconds() - float(meta["duration_s"])))
    return statistics.median(extra) if extra else None


def known_noise(store: CampaignStore) -> list[Noise]:
    """Per metric, the spread of a reference run's value and of a cycle's on/off
    difference in a stored campaign (the first configuration that has them); empty where
    none has 2 such units."""
    import numpy as np

    from ..analysis import paired
    from ..analysis.kinds import transform
    from ..analysis.pipeline import Options, analyze
    from ..analysis.verdict import Context
    analysis = analyze(store, Options(evt=False, extras=False))
    ctx = Context.of(analysis)
    source = store.info.get("id")
    solo = [c for c, runs in ctx.runs_of.items() if (runs[0].get("config") or {}).get("placement") == "solo"]
    switched = [c for c, runs in ctx.runs_of.items() if windows.has_windows(ctx.events, [r["run_id"] for r in runs])]
    found = []
    for metric, info in sorted(analysis.infos.items()):
        stat = info.kind.primary
        for cid in solo:
            values = ctx.primary_values(cid, metric)
            if len(values) >= 2:
                x, scale = transform(values, stat)
                found.append(Noise(metric, stat.label, float(np.std(x, ddof=1)), scale, float(np.mean(values)),
                                   len(values), "runs", f"{source} ({cid})", ctx.runs_of[cid][0].get("config") or {}))
                break
        for cid in switched:
            cycles = paired.cycle_values(stat, ctx.run_windows(cid, info))
            if cycles is not None and len(cycles[1]) >= 2:
                scale, d, _, _, off = cycles
                found.append(Noise(metric, stat.label, float(np.std(d, ddof=1)), scale, float(np.mean(off)),
                                   len(d), "windows", f"{source} ({cid})", ctx.runs_of[cid][0].get("config") or {}))
                break
    return found
