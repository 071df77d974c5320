"""The report's "Interference channels" table and evidence.json, from the analysis's
channel rows (analysis/interference.py) of a channel study or a search's confirmation.

evidence.json is what a safety case cites: per channel, tested or not (and why not), the
stressor configuration and its hash, the guest image and program hashes, the host and
hypervisor configuration, the multiplier with its interval and the verdict, and the
campaign and run ids behind every number, so each figure leads back to the stored
samples (runs/<run_id>/samples.parquet in the campaign directory).
"""
from __future__ import annotations

from pathlib import Path

from ..analysis import wording
from ..results.store import CampaignStore
from ..spec.sizes import human
from .tables import Table, pval

EVIDENCE_VERSION = 1


def stressor_text(stressor: dict | None, sizes: dict | None = None, sized: str | None = None) -> str:
    """`memcpy(size=shared/2 = 7.6 MiB, measured)`: a size with its bytes and the source of
    the caches it resolved against, where the runs say; a size in bytes in binary units;
    `sized`: why the study cut the default's size (interference/study.py), after it."""
    if not stressor:
        return "-"

    def shown(key, value) -> str:
        size = (sizes or {}).get(key) or {}
        if size.get("bytes") is None:
            return f"{key}={value}"
        if str(value).isdigit():
            return f"{key}={human(size['bytes'])}"
        source = f", {size['source']}" if size.get("source") else ""
        return f"{key}={value} = {human(size['bytes'])}{source}"
    params = ", ".join(shown(k, v) for k, v in sorted(stressor["params"].items()))
    return f"{stressor['bench']}({params})" + (f" ({sized})" if sized else "")


def effect_text(row: dict) -> str:
    if row.get("multiplier") is not None:
        lo, hi = row.get("multiplier_ci") or (None, None)
        return f"×{row['multiplier']:.3f}" + (f" [{lo:.3f}, {hi:.3f}]" if lo is not None else "")
    if row.get("change") is not None:
        lo, hi = row.get("change_ci") or (None, None)
        unit = row.get("change_unit") or ""
        return f"{row['change']:+.2f} {unit}" + (f" [{lo:+.2f}, {hi:+.2f}]" if lo is not None else "")
    return "-"


def pressure_text(p: dict | None) -> str:
    if not p:
        return "-"
    if p.get("rate") is None:
        return f"not reported: {p['reason']}" if p.get("reason") else "not reported"
    alone = f" ({p['of_alone']:.0%} of alone)" if p.get("of_alone") is not None else ""
    return f"{wording.num(p['rate'])} {p.get('unit') or ''}{alone}".strip()


def _time(ns) -> str:
    return wording.duration(ns) if ns is not None else "-"


def channel_table(rows: list[dict]) -> Table:
    body = []
    for r in rows:
        if not r["tested"]:
            body.append([r["channel"], stressor_text(r.get("stressor")), "-", "-", "-",
                         f"not tested: {r['reason']}", "-", "-", "-"])
            continue
        body.append([r["channel"], stressor_text(r["stressor"], r.get("sizes"), r.get("sized")), r["placement"] or "-",
                     r["metric"],
                     pressure_text(r.get("pressure")), f"{effect_text(r)}  {r['statistic']}",
                     f"{r['verdict']} (p={pval(r.get('p_value'))})",
                     f"{_time(r.get('p99_alone_ns'))} → {_time(r.get('p99_ns'))}",
                     f"{_time(r.get('max_alone_ns'))} → {_time(r.get('max_ns'))}"])
    return Table("channels", "Interference channels: the measurer next to each channel's stressor, against alone",
                 ["channel", "stressor", "placement", "metric", "achieved pressure",
                  "slowdown multiplier [95% interval]", "verdict", "p99 alone → stressed", "max alone → stressed"],
                 body, note="multiplier: the statistic under stress over alone, 95% interval over runs; a share "
                            "(stolen time) has no multiplier: its change in percentage points. evidence.json in "
                            "the report directory lists the runs behind every number.",
                 compact=("channel", "stressor", "placement", "achieved pressure", "slowdown multiplier [95% interval]",
                          "verdict"))


def _hashes(runs: list[dict]) -> dict[str, list[str]]:
    """Every image and program hash the runs' backends recorded, by key."""
    out: dict[str, set] = {}
    for meta in runs:
        for key, value in (meta.get("backend_metadata") or {}).items():
            if isinstance(value, str) and (key.endswith("sha256") or key.endswith("_hash")):
                out.setdefault(key, set()).add(value)
    return {k: sorted(v) for k, v in sorted(out.items())}


def evidence(res: dict) -> dict:
    runs = CampaignStore(Path(res["path"])).runs()
    spec = res.get("spec") or {}
    campaign = res["campaign"]
    channels = []
    for r in res["channels"]:
        item = {k: r.get(k) for k in ("channel", "title", "tested", "reason", "stressor")}
        if r["tested"]:
            item.update({k: r.get(k) for k in ("placement", "config_id", "metric", "statistic", "multiplier",
                                                "multiplier_ci", "change", "change_ci", "change_unit", "verdict",
                                                "p_value", "p99_ns", "max_ns", "p99_alone_ns", "max_alone_ns",
                                                "pressure", "sizes", "sized")})
            item["evidence"] = {"campaign": campaign["id"], "runs": r["runs"], "baseline": r["baseline"],
                                "baseline_runs": r["baseline_runs"],
                                "samples": [f"runs/{rid}/samples.parquet" for rid in r["runs"] + r["baseline_runs"]]}
        channels.append(item)
    return {"evidence_version": EVIDENCE_VERSION, "campaign": campaign, "campaign_path": res["path"],
            "study": res.get("study"), "hypervisor": {"backend": spec.get("backend"), "cpus": spec.get("cpus")},
            "host": res.get("host"), "images": _hashes(runs), "analysis": res.get("analysis"),
            "channels": channels}


def ratio_text(vs: dict | None) -> str:
    """The found neighbour over the best default: ×ratio [95 %], or a difference in points."""
    vs = vs or {}
    if vs.get("ratio") is not None:
        lo, hi = vs.get("ratio_ci") or (None, None)
        return f"×{vs['ratio']:.3f}" + (f" [{lo:.3f}, {hi:.3f}]" if lo is not None else "")
    if vs.get("difference") is not None:
        lo, hi = vs.get("difference_ci") or (None, None)
        return f"{vs['difference']:+.2f} {vs['unit']}" + (f" [{lo:+.2f}, {hi:+.2f}]" if lo is not None else "")
    return "-"


def search_table(res: dict) -> Table:
    """The search's outcome: its conclusion, the ratio found / best default, the trials."""
    o, s = res["search"], (res.get("study") or {}).get("search") or {}
    found, best, vs = o.get("found") or {}, o.get("best_default") or {}, o.get("against_best_default") or {}
    ratio = ratio_text(vs)
    states = [t["state"] for t in s.get("trials", [])]
    imp = s.get("importances") or {}
    mattered = "; ".join(filter(None, [", ".join(f"{k} {v:.2f}" for k, v in (imp.get("values") or {}).items()),
                                       imp.get("reason")])) or "-"
    rows = [["conclusion", o.get("conclusion", "-")],
            ["worst neighbour found", f"{stressor_text(found.get('stressor'))}: {effect_text(found)} ({found.get('verdict')})"],
            ["best channel default", f"{best.get('channel', '-')}: {stressor_text(best.get('stressor'))}: "
                                     f"{effect_text(best) if best else '-'}"],
            ["found over best default [95% interval]", f"{ratio} ({vs.get('verdict', '-')})"],
            ["trials", f"{states.count('complete')} finished, {states.count('pruned')} pruned, "
                       f"{states.count('fail')} failed; the trials took {s.get('seconds', 0):.0f} s of this "
                       "session (measuring alone and this confirmation not counted)"],
            ["parameters that mattered", mattered],
            ["search journal", s.get("directory", "-")]] + beside_study(res, s)
    return Table("search", f"Worst-neighbour search {s.get('name', '')}: {s.get('metric', '')}, {s.get('placement', '')}",
                 ["", "value"], rows, note="ratio: the measurer's statistic next to the found neighbour over next to "
                                           "the best default, from the confirmation campaign's fresh runs")


def beside_study(res: dict, s: dict) -> list[list[str]]:
    """Each default of this confirmation that the stored channel study of the spec measured
    too: both intervals, and why they may differ (search/earlier.py)."""
    study, here = s.get("channel_study") or {}, s.get("confirm") or {}
    out = []
    for r in res.get("channels") or []:
        then = (study.get("rows") or {}).get(f"{r['channel']}@{r.get('placement')}")
        if not r.get("tested") or r.get("role") != "default" or not then:
            continue
        apart = ["other runs at another time (the drift between campaigns)"]
        if then.get("runs") != len(r.get("runs") or []) or study.get("duration_s") != here.get("duration_s"):
            apart.append(f"{then.get('runs')} runs of {study.get('duration_s')} s there, {len(r.get('runs') or [])} "
                         f"of {here.get('duration_s')} s here")
        out.append([f"{r['channel']} default, here and in the channel study",
                    f"here {effect_text(r)}; channel study {study['campaign']}: {effect_text(then)} "
                    f"({r.get('placement')}): each in its own campaign, so they differ by " + "; ".join(apart)])
    return out
