"""Campaigns side by side (e.g. the same spec on Xen and on QEMU/KVM, three boots of each;
or the same campaign run twice): per matching (configuration, metric), side B against side
A with the campaign as a level of the design (levels.py: campaign values, the drift
between campaigns measured from each side's replicate campaigns and the stored campaigns
of the same spec on the same host), verdict `different`, `no-difference` or
`inconclusive`, next to each campaign's own verdict against its baseline.

Configurations are matched by their dimension values (placement, start order, matrix
paths), compared as text on the dimensions both campaigns have; a configuration that
matches nothing, or more than one, is listed as only in A / only in B. The other
campaigns of a side (and its siblings) are matched to the side's first campaign the same
way; one that lacks the configuration simply does not count for that row.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .effects import Rules, describe_change
from .host_load import load_difference
from .kinds import metric_info
from .levels import Side, assess_sides
from .verdict import Context
from .wording import name_statistics, sentence, share

LABELS = ("different", "no-difference", "inconclusive")


def label(result: dict, other: dict) -> str:
    a, b = result["campaign"], other["campaign"]
    return a.get("name") if a.get("name") != b.get("name") else a.get("id")


def _keys(configs: dict[str, dict], dims: set[str]) -> dict[tuple, str]:
    """Match key (the shared dimension values as text) -> config_id; ambiguous keys dropped."""
    out: dict[tuple, str | None] = {}
    for cid, cfg in configs.items():
        key = tuple(sorted((k, str(v)) for k, v in cfg.items() if k in dims))
        out[key] = None if key in out else cid
    return {k: v for k, v in out.items() if v is not None}


def match(configs_a: dict[str, dict], configs_b: dict[str, dict]) -> list[tuple[str, str, dict]]:
    """(config of A, config of B, shared dimension values) for each match."""
    dims = set().union(*configs_a.values()) & set().union(*configs_b.values()) if configs_a and configs_b else set()
    ka, kb = _keys(configs_a, dims), _keys(configs_b, dims)
    return [(ka[k], kb[k], dict(k)) for k in ka if k in kb]


def _context(analysis, rng: np.random.Generator) -> Context:
    res = analysis.result
    runs_of: dict[str, list[dict]] = {}
    for r in analysis.used_runs:
        runs_of.setdefault(r.get("config_id", "?"), []).append(r)
    return Context(analysis.runs_streams, runs_of, analysis.events, analysis.infos,
                   list((res.get("spec") or {}).get("deadlines") or []), Rules.of(res.get("spec") or {}), None, rng)


@dataclass
class Group:
    """The analyses of one side (its first campaign is the one configurations match to),
    and its sibling campaigns: the same spec on the same host, not compared."""

    campaigns: list
    siblings: list = field(default_factory=list)

    def __post_init__(self):
        rng = np.random.default_rng(0)
        self.contexts = [_context(x, rng) for x in self.campaigns]
        self.sibling_contexts = [_context(x, rng) for x in self.siblings]
        first = self.campaigns[0].result["configs"]
        self.config_maps = [{ca: cb for ca, cb, _ in match(first, x.result["configs"])}
                            for x in self.campaigns + self.siblings]

    def units(self, cid: str, info, ns: bool) -> tuple[list[list[dict]], list[list[dict]]]:
        """Every run's statistics of the configuration `cid` (of the first campaign), per
        campaign of the side and per sibling; `ns`: times in ns by each run's own clock."""
        per = [ctx.run_units(m[cid], info, ns) if cid in m else [] for ctx, m in
               zip(self.contexts + self.sibling_contexts, self.config_maps)]
        return [[u for _, u in runs] for runs in per[:len(self.campaigns)]], \
            [[u for _, u in runs] for runs in per[len(self.campaigns):]]

    def streams(self, cid: str, metric: str) -> list:
        """The pooled sample stream of configuration `cid` (of the first campaign) in each
        campaign of the side that has it."""
        return [x.pooled[(m[cid], metric)] for x, m in zip(self.campaigns, self.config_maps)
                if cid in m and (m[cid], metric) in x.pooled]

    def runs_of(self, cid: str) -> list[dict]:
        return [r for ctx, m in zip(self.contexts, self.config_maps) if cid in m for r in ctx.runs_of.get(m[cid], [])]


def side_label(side: Group, other: Group) -> str:
    first = label(side.campaigns[0].result, other.campaigns[0].result)
    return first if len(side.campaigns) == 1 else f"{first} ×{len(side.campaigns)}"


def compare_campaigns(a: Group, b: Group, seed: int = 0, shared_siblings: bool = False) -> dict:
    """Side B against side A (A is the reference: its settings decide)."""
    ra, rb = a.campaigns[0].result, b.campaigns[0].result
    la, lb = side_label(a, b), side_label(b, a)
    rng = np.random.default_rng(seed)
    rules = a.contexts[0].rules
    first_a, first_b = a.campaigns[0], b.campaigns[0]
    own_a = {(v["config_id"], v["metric"]): v for v in ra["verdicts"]}
    own_b = {(v["config_id"], v["metric"]): v for v in rb["verdicts"]}
    rows, matched_a, matched_b = [], set(), set()
    for cid_a, cid_b, dims in match(ra["configs"], rb["configs"]):
        for (cid, metric), stream in first_a.pooled.items():
            if cid != cid_a or (cid_b, metric) not in first_b.pooled:
                continue
            matched_a.add((cid_a, metric))
            matched_b.add((cid_b, metric))
            info = b.contexts[0].infos.get(metric) or metric_info(metric, None)
            # in ns where both sides know their clocks: the counters of two hosts or
            # backends need not tick at one rate (a 1 GHz and a 2.5 GHz one read +225 % for +30 %)
            ns = bool(stream.ns_per_tick and first_b.pooled[(cid_b, metric)].ns_per_tick)
            (mine, mine_sib), (ref, ref_sib) = b.units(cid_b, info, ns), a.units(cid_a, info, ns)
            ns_per_tick = 1.0 if ns else stream.ns_per_tick
            kind = info.kind
            key = kind.primary.key
            pick = lambda groups, k=key: [[u[k] for u in g] for g in groups]  # noqa: E731
            row = assess_sides(kind.primary, Side(pick(mine), pick(mine_sib)), Side(pick(ref), pick(ref_sib)),
                               rules, rng, LABELS, shared_siblings)
            flat = lambda groups: [u for g in groups for u in g]  # noqa: E731
            extra = [describe_change(s, [u[s.key] for u in flat(mine)], [u[s.key] for u in flat(ref)])
                     for s in kind.secondary]
            _mind_host_load(row, a.runs_of(cid_a), b.runs_of(cid_b), la, lb)
            row.update(unit_word=row.get("level", "runs"), config_id=cid_b, config_id_a=cid_a, config=dims, metric=metric, kind=kind.name,
                       better=kind.better, secondary=extra, metric_unit=info.unit, ns_per_tick=ns_per_tick,
                       a_vs_baseline=_own(own_a.get((cid_a, metric))), b_vs_baseline=_own(own_b.get((cid_b, metric))))
            _in_argument_order(row)
            name_statistics([row, *extra], info.unit)
            row["sentence"] = sentence(f"{la} vs {lb} ({cid_b})", metric, row, extra, kind.better,
                                       ns_per_tick, info.unit, row["unit_word"])
            rows.append(row)
    only_a = sorted(f"{c}/{m}" for c, m in set(first_a.pooled) - matched_a)
    only_b = sorted(f"{c}/{m}" for c, m in set(first_b.pooled) - matched_b)
    return {"a": _side(la, a), "b": _side(lb, b), "alpha": rules.alpha, "rows": rows, "only_a": only_a,
            "only_b": only_b, "warnings": {"a": ra["warnings"], "b": rb["warnings"]},
            "noise_flags": {"a": ra["noise_flags"], "b": rb["noise_flags"]}}


def _in_argument_order(row: dict) -> None:
    """The counts of a row, computed B first (B against A), in the order the campaigns were
    named (A first), as its sentence and table read them: reference -> value is A -> B, so
    "3 vs 5 campaigns" is A's 3 and B's 5. Nothing that decides the verdict reads them."""
    for key in ("units", "runs"):
        if row.get(key):
            row[key] = list(reversed(row[key]))
    if (row.get("drift") or {}).get("campaigns"):
        row["drift"]["campaigns"] = list(reversed(row["drift"]["campaigns"]))


def _side(lab: str, side: Group) -> dict:
    res = side.campaigns[0].result
    runs = [r for x in side.campaigns for r in x.result["runs"]]
    return {"label": lab, **res["campaign"], "overall": res["overall"], "host": _host(res), "backend": _backend(res),
            "runs_passed": sum(r["status"] in ("pass", "degraded") for r in runs), "runs_stored": len(runs),
            "campaigns": [x.result["campaign"].get("id") for x in side.campaigns],
            "siblings": [x.result["campaign"].get("id") for x in side.siblings]}


def _mind_host_load(row: dict, runs_a: list[dict], runs_b: list[dict], la: str, lb: str) -> None:
    """Record both sides' host load on the measured CPU; a "different" between campaigns
    whose hosts were loaded this differently is not told as the system's (host_load.py)."""
    load = load_difference(runs_a, runs_b)
    row["host_load"] = load
    if load and load["confounded"] and row["verdict"] == LABELS[0]:
        row["verdict"] = LABELS[2]
        row["reason"] = (f"the runs differ, but so did the host's own load on the measured CPU (median "
                         f"{share(load['a_pct'])} of each run in {la}, {share(load['b_pct'])} in {lb}): the difference "
                         f"may be the host's; run both on an equally quiet host")
        row["need_units"] = None


def _own(v: dict | None) -> dict | None:
    if not v:
        return None
    return {k: v.get(k) for k in ("baseline", "design", "verdict", "statistic", "change_pct", "ci95_pct",
                                  "noise_floor_pct", "sentence")}


def _host(res: dict) -> dict:
    h = res.get("host") or {}
    return {k: h.get(k) for k in ("hostname", "cpu_model", "kernel")}


def _backend(res: dict) -> str:
    return str(((res.get("spec") or {}).get("backend") or {}).get("kind", "native"))
