"""The stage of the worst case: pWCET by extreme-value theory (evt.py) per configuration
and metric. evt.py (scipy.stats) is imported when the stage runs: `show` and `run` skip
it (Options.evt) and do not pay for the import."""
from __future__ import annotations

from ..kinds import metric_info, metrics_of
from ..result import Rows
from . import Pass, stage


@stage("evt", 100, Rows, needs="evt", empty=[])
def pwcet(p: Pass) -> Rows:
    from .. import evt
    infos = metrics_of(p.runs)
    out = []
    for (cid, metric), s in p.pooled.items():
        what = infos.get(metric) or metric_info(metric, {"unit": p.units.get(metric)})
        out.append(dict(config_id=cid, metric=metric, ns_per_tick=s.ns_per_tick,
                        **evt.pwcet(s, p.by_config[(cid, metric)], what)))
    return out
