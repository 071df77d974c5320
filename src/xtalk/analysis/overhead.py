"""Overhead against the bare machine: in a campaign with the backend as a matrix dimension
("backend.kind"), each configuration on a hypervisor against the same configuration on
`native` (the same values on every other dimension but the backends' options, start
order included), per metric, with the engine of the interference verdicts
(verdict.runs_row: the run is the unit of evidence, the native runs give the noise floor). Verdicts: `overhead` (significant,
above the noise floor and the negligible change), `no-overhead` (the 95% interval inside
the negligible change), `inconclusive` (with the runs that would decide it); the native
configuration itself is the `baseline`.

Every backend counts in its own clock (the native program calibrates the TSC, a guest
reports the counter frequency it was given or measured), so each run's statistics are
converted to ns with that run's own frequency before they are compared; counts and
shares are compared as they are.
"""
from __future__ import annotations

from ..spec.plan import BACKEND_DIM
from .gates import baseline_of
from .kinds import metric_info
from .verdict import Context, baseline_row, by_kpi, complete, no_reference_row, runs_row

BARE = "native"
LABELS = ("overhead", "no-overhead", "inconclusive")


def overhead_rows(ctx: Context, pooled: dict, configs: dict[str, dict]) -> list[dict]:
    """One row per (configuration, metric) of `pooled` when the backend is a dimension of
    the campaign (else none); values of ticks in ns (ns_per_tick 1)."""
    if not any(BACKEND_DIM in c for c in configs.values()):
        return []
    return against_rows(ctx, pooled, configs, BACKEND_DIM, BARE, LABELS, "backend", lambda config: tuple(
        d for d in config if d.startswith("backend.") and d != BACKEND_DIM))  # the guest's own options


def against_rows(ctx: Context, pooled: dict, configs: dict[str, dict], dim: str, reference: str,
                 labels: tuple[str, str, str], key: str, free=lambda config: ()) -> list[dict]:
    """Each (configuration, metric) of `pooled` against the same configuration with `dim`
    = `reference` (the same values on every other dimension but the `free` ones of the
    configuration), by the verdicts' engine in ns; the reference's own rows are the
    baseline. Each row says its value of `dim` as `key`."""
    out = []
    for cid, metric in pooled:
        info = ctx.infos.get(metric) or metric_info(metric, None)
        value = str(configs[cid].get(dim))
        ref = cid if value == reference else baseline_of(configs[cid], configs, dim, reference,
                                                          free=free(configs[cid]))
        extra: list[dict] = []
        if ref == cid:
            row = baseline_row(ctx, cid, info, ns=True)
        elif ref is None or (ref, metric) not in pooled:
            row = no_reference_row(info, len(ctx.runs_of.get(cid, [])), f"no {reference} run of this configuration "
                                   f"({dim}={reference} with the same other dimensions)")
        else:
            row, extra = runs_row(ctx, cid, ref, info, labels, ns=True)
        row[key] = value
        label = f"{cid} against {ref}" if ref not in (cid, None) else cid
        out.append(complete(ctx, row, extra, cid, info, 1.0, "runs", ref, label))
    return by_kpi(out)
