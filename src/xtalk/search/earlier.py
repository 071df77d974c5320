"""The channel study of the same spec stored in the results directory, if any, for a search's
confirmation to stand beside: a channel's default stressor is measured in both, in
campaigns of their own, and their multipliers differ by the drift between campaigns, and
by the placement and the runs' length where those differ. The confirmation keeps the newest
study's rows (campaign.json's study record) so its report shows both intervals and says why.
Caveat: "the same spec" is its name (the study's campaigns are `<name>-channels-<time>`);
a study of an edited spec of the same name is taken as well.
"""
from __future__ import annotations

from pathlib import Path

from ..analysis.pipeline import Options, analyze
from ..results.store import list_campaigns

KEPT = ("multiplier", "multiplier_ci", "change", "change_ci", "change_unit", "verdict", "placement")


def channel_study(out: Path, name: str) -> dict | None:
    """campaign, its runs' duration_s, and per channel@placement its default's row (with its
    number of runs); None where no study of `name` is stored."""
    studies = sorted((s for s in list_campaigns(out) if s.path.name.startswith(f"{name}-channels-")),
                     key=lambda s: s.path.name)
    if not studies:
        return None
    result = analyze(studies[-1], Options(evt=False, extras=False)).result
    rows = {f"{r['channel']}@{r.get('placement')}": {**{k: r.get(k) for k in KEPT}, "runs": len(r.get("runs") or [])}
            for r in result.get("channels") or [] if r.get("tested") and r.get("role") == "default"}
    durations = sorted({r.get("duration_s") for r in result.get("runs") or [] if r.get("duration_s")})
    return {"campaign": studies[-1].path.name, "duration_s": durations[-1] if durations else None, "rows": rows}
