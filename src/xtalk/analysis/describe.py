"""Descriptive statistics of a stream (one run, or a configuration's pooled runs):
count, min, Q1, median, Q3, max, mean, sd, skewness, kurtosis, p90/p99/p99.9/p99.99 and
the observed worst case (WCET = max), in counter ticks and in ns side by side; a count or
a rate in its own unit (no WCET, no ns).

Quantiles: quantile_cont (linear interpolation, numpy's default) computed exactly while
the raw values are kept (accum.EXACT_LIMIT per run), else from the log-linear histogram
(relative error < 4.9e-4, `exact_quantiles` false). sd: ddof=1. skew: adjusted
Fisher-Pearson G1; kurtosis: excess kurtosis G2 (0 for a normal distribution), both
bias-corrected as scipy's bias=False. A quantile q is `resolved` only when at least
10 samples lie above it (n * (1 - q) >= 10); unresolved ones are still shown, marked.
ns = ticks x 1e9 / counter frequency (the pooled value uses the mean tick length).
"""
from __future__ import annotations

from .accum import Stream
from .wording import in_ticks

QUANTILES = {"q1": 0.25, "median": 0.5, "q3": 0.75, "p90": 0.90, "p99": 0.99, "p999": 0.999, "p9999": 0.9999}
STAT_KEYS = ("n", "min", "q1", "median", "q3", "max", "mean", "sd", "skew", "kurtosis",
             "p90", "p99", "p999", "p9999", "wcet")
NS_KEYS = ("min", "q1", "median", "q3", "max", "mean", "sd", "p90", "p99", "p999", "p9999", "wcet")


def describe(stream: Stream, unit: str) -> dict:
    """The statistics of one stream of a metric in `unit`: a count or rate (not a time) has
    no WCET and no ns values."""
    row: dict = {"n": stream.n}
    if stream.n == 0:
        return row
    values, exact = stream.quantiles(list(QUANTILES.values()))
    row["min"], row["max"] = float(stream.vmin), float(stream.vmax)
    time = in_ticks(unit)
    if time:
        row["wcet"] = float(stream.vmax)
    row.update({k: float(v) for k, v in zip(QUANTILES, values)})
    row.update(stream.moments.stats())
    row["exact_quantiles"] = exact
    row["unresolved"] = [k for k, q in QUANTILES.items() if stream.n * (1 - q) < 10]
    row["ns_per_tick"] = stream.ns_per_tick
    if stream.ns_per_tick and time:
        for k in NS_KEYS:
            if row.get(k) is not None:
                row[f"{k}_ns"] = row[k] * stream.ns_per_tick
    row["overflow"] = stream.overflow
    return row


def stats_rows(streams: dict, configs_of: dict[str, str], units: dict[str, str]) -> tuple[list[dict], list[dict], dict]:
    """Per-run rows, per-configuration rows and the pooled streams {(config, metric): Stream}.

    `configs_of` maps run_id -> config_id; configurations keep the order of first appearance;
    `units` metric -> unit (a metric missing there is in cycles).
    """
    per_run = []
    pooled: dict[tuple[str, str], list[Stream]] = {}
    for (run_id, metric), s in streams.items():
        cid = configs_of.get(run_id, "?")
        unit = units.get(metric, "cycles")
        per_run.append({"run_id": run_id, "config_id": cid, "metric": metric, **describe(s, unit)})
        pooled.setdefault((cid, metric), []).append(s)
    merged = {key: Stream.merged(group) for key, group in pooled.items()}
    order = {c: i for i, c in enumerate(dict.fromkeys(configs_of.values()))}
    per_config = []
    for (cid, metric), s in merged.items():
        per_config.append({"config_id": cid, "metric": metric, "runs": len(s.runs),
                           "freq_spread": s.freq_spread, **describe(s, units.get(metric, "cycles"))})
    per_config.sort(key=lambda r: (r["metric"], order.get(r["config_id"], 1 << 30)))
    per_run.sort(key=lambda r: (r["metric"], order.get(r["config_id"], 1 << 30), r["run_id"]))
    return per_run, per_config, merged


def gate_stats(per_config: list[dict]) -> list[dict]:
    """Rows in the shape gates.evaluate expects (config_stats' keys)."""
    return [dict(r, runs=r.get("runs")) for r in per_config if r.get("n")]
