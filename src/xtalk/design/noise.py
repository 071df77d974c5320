"""The noise of one run on this host, where a stored campaign measured it: the spread of
the primary statistic over the reference runs of the newest stored campaign of this spec
(by name), or of its calibrate A/A campaign (`<name>-calibrate-aa`), on this host
(hostname) with the same backend and measurer. It turns the design check's "detects k sd"
into a change in % (or points) for the runs design.
Caveats: one campaign's runs give the spread, not the drift between campaigns
(analysis/levels.py); the on/off design's spread (of a cycle's difference) is not
derived from it; a spec whose name changed finds nothing.
"""
from __future__ import annotations

import platform
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..analysis.kinds import to_pct, transform
from ..results.store import CampaignStore, catalog
from ..spec.model import Campaign


@dataclass(frozen=True)
class Noise:
    """The spread of one run's value of a metric's primary statistic (analysis scale)."""

    metric: str
    statistic: str
    sd: float
    scale: str
    reference: float      # the runs' typical value, for a change on the "diff" scale
    runs: int
    source: str           # the campaign measured

    def change_pct(self, sds: float) -> float | None:
        """A change of `sds` standard deviations in % of the reference value."""
        return to_pct(sds * self.sd, self.scale, self.reference)


def _same_setup(store: CampaignStore, spec: Campaign, host: str) -> bool:
    info = store.info
    stored = info.get("spec") or {}
    return (info.get("name") in (spec.name, f"{spec.name}-calibrate-aa")
            and (info.get("host") or {}).get("hostname") == host
            and (stored.get("backend") or {}).get("kind", "native") == spec.backend.kind
            and (stored.get("measurer") or {}).get("bench") == spec.measurer.bench)


def newest_measured(out: Path, spec: Campaign) -> CampaignStore | None:
    host = platform.node()
    found = [s for s in catalog(Path(out))[0] if _same_setup(s, spec, host)]
    return max(found, key=lambda s: s.info.get("created_at", ""), default=None)


def known_noise(out: Path, spec: Campaign) -> list[Noise]:
    """Per metric, the spread of a reference run's value in the newest stored campaign of
    this setup; empty where none is stored or none has 2 reference runs."""
    store = newest_measured(out, spec)
    if store is None:
        return []
    from ..analysis.pipeline import Options, analyze
    from ..analysis.verdict import Context
    analysis = analyze(store, Options(evt=False, extras=False))
    ctx = Context.of(analysis)
    references = [cid for cid, runs in ctx.runs_of.items() if (runs[0].get("config") or {}).get("placement") == "solo"]
    out_rows = []
    for metric, info in sorted(analysis.infos.items()):
        for cid in references[:1]:
            values = ctx.primary_values(cid, metric)
            if len(values) < 2:
                continue
            x, scale = transform(values, info.kind.primary)
            out_rows.append(Noise(metric, info.kind.primary.label, float(np.std(x, ddof=1)), scale,
                                  float(np.mean(values)), len(values), f"{store.info.get('id')} ({cid})"))
    return out_rows
