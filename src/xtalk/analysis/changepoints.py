"""Change over time within runs: the start-up ramp (thesis Table 5.4), the effect of
timeline events (Table 5.5: before/during/after medians, the extreme at the transition),
a change-point detector, and long-term drift.

Time series: a run's uniform-stride subsample binned into BINS equal slices of its
duration (t_s; sample position when there is no clock), one median per bin.
Warm-up length: MSER-5 (White 1997) on the subsample: the truncation d <= half the series
minimising the standard error of the mean of what remains; reported as significant only
when the truncated head differs from the rest (Mann-Whitney p < 0.001 and >= 1% in
median), and only significant warm-ups are excluded by --exclude-rampup.
Change points: binary segmentation of the bin medians with a squared-error cost and the
penalty 3 sigma^2 ln(m) (sigma from the MAD of first differences, m bins), minimum
segment 3 bins. An event counts as detected when a change point lies within 3 bins of it.
Segments between timeline events use each run's executed event times; their medians are
exact while the run's raw values are kept, else histogram-based (< 0.05% error).
"""
from __future__ import annotations

import math

import numpy as np

from . import hist
from .accum import Stream
from .wording import in_ticks

BINS = 200
TOLERANCE_BINS = 3


def binned(stream: Stream, bins: int = BINS) -> dict:
    """Bin medians of a run: {'x': bin centres, 'median': ..., 'count': ..., 'by': 't_s'|'index'}."""
    pos, val, ts = stream.subsample()
    if len(val) == 0:
        return {"x": np.zeros(0), "median": np.zeros(0), "count": np.zeros(0), "by": "index", "width": 0.0}
    by = "t_s" if np.isfinite(ts).all() else "index"
    x = ts if by == "t_s" else pos.astype(np.float64)
    nb = max(1, min(bins, len(val) // 3))
    lo, hi = float(x.min()), float(x.max())
    width = (hi - lo) / nb if hi > lo else 1.0
    b = np.minimum(((x - lo) / width).astype(np.int64), nb - 1)
    order = np.lexsort((val, b))
    sb, sv = b[order], val[order].astype(np.float64)
    starts = np.searchsorted(sb, np.arange(nb), side="left")
    ends = np.searchsorted(sb, np.arange(nb), side="right")
    cnt = ends - starts
    ok = cnt > 0
    mid = np.where(ok, (sv[np.minimum(starts + (cnt - 1) // 2, len(sv) - 1)]
                        + sv[np.minimum(starts + cnt // 2, len(sv) - 1)]) / 2, np.nan)
    centres = lo + (np.arange(nb) + 0.5) * width
    return {"x": centres[ok], "median": mid[ok], "count": cnt[ok], "by": by, "width": width}


def mser5(y: np.ndarray) -> int:
    """MSER-5 truncation point, in points of y."""
    m = len(y) // 5
    if m < 4:
        return 0
    z = y[: m * 5].reshape(m, 5).mean(axis=1)
    rs = np.cumsum(z[::-1])[::-1]
    rs2 = np.cumsum((z * z)[::-1])[::-1]
    k = m - np.arange(m)
    sse = rs2 - rs * rs / k
    with np.errstate(divide="ignore", invalid="ignore"):
        crit = sse / (k * k)
    d = int(np.argmin(crit[: m // 2 + 1]))
    return d * 5


def rampup(stream: Stream, median: float) -> dict:
    """Thesis Table 5.4 (first iteration vs median) plus the automatic warm-up length."""
    first = float(stream.head_v[0]) if len(stream.head_v) else None
    out = {"run_id": stream.run_id, "metric": stream.metric, "first": first, "median": median,
           "ns_per_tick": stream.ns_per_tick,
           "first_vs_median_pct": (median - first) / median * 100 if first is not None and median else None,
           "warmup_n": 0, "warmup_s": None, "significant": False, "p_value": None, "head_median": None}
    pos, val, ts = stream.subsample()
    y = val.astype(np.float64)
    d = mser5(y)
    if d == 0 or d >= len(y):
        return out
    head, rest = y[:d], y[d:]
    import scipy.stats  # ~0.5 s: only where a ramp is looked for (`xtalk run` does not)
    p = float(scipy.stats.mannwhitneyu(head, rest, alternative="two-sided").pvalue) if len(head) >= 3 else None
    hm, rm = float(np.median(head)), float(np.median(rest))
    big = rm != 0 and abs(hm - rm) / abs(rm) >= 0.01
    out.update(warmup_n=int(pos[d]), warmup_s=float(ts[d]) if np.isfinite(ts[d]) else None,
               p_value=p, head_median=hm, steady_median=rm,
               head_vs_steady_pct=(hm - rm) / rm * 100 if rm else None,
               significant=bool(p is not None and p < 1e-3 and big))
    return out


def _seg_cost(cs: np.ndarray, cs2: np.ndarray, s: int, e: int) -> float:
    n = e - s
    tot = cs[e] - cs[s]
    return float(cs2[e] - cs2[s] - tot * tot / n)


def binseg(y: np.ndarray, min_size: int = 3, penalty: float | None = None) -> list[int]:
    """Indices where a new segment starts (binary segmentation, mean-shift cost)."""
    y = np.asarray(y, dtype=np.float64)
    m = len(y)
    if m < 2 * min_size:
        return []
    if penalty is None:
        mad = np.median(np.abs(np.diff(y) - np.median(np.diff(y)))) if m > 2 else 0.0
        sigma = mad / 0.6745 / math.sqrt(2)
        sigma = sigma if sigma > 0 else max(np.std(y), 1e-12) * 1e-3
        penalty = 3.0 * sigma * sigma * math.log(m)
    cs = np.concatenate([[0.0], np.cumsum(y)])
    cs2 = np.concatenate([[0.0], np.cumsum(y * y)])
    found, stack = [], [(0, m)]
    while stack:
        s, e = stack.pop()
        if e - s < 2 * min_size:
            continue
        ks = np.arange(s + min_size, e - min_size + 1)
        left_n, right_n = ks - s, e - ks
        left = cs2[ks] - cs2[s] - (cs[ks] - cs[s]) ** 2 / left_n
        right = cs2[e] - cs2[ks] - (cs[e] - cs[ks]) ** 2 / right_n
        gain = _seg_cost(cs, cs2, s, e) - (left + right)
        j = int(np.argmax(gain))
        if gain[j] > penalty:
            k = int(ks[j])
            found.append(k)
            stack += [(s, k), (k, e)]
    return sorted(found)


def segment_labels(events: list[dict]) -> list[str]:
    """Label of each segment between timeline events: 'before', '<targets> on', 'after'."""
    active: list[str] = []
    labels = ["before"]
    for e in events:
        tgt, act = e.get("target"), e.get("action")
        if act in ("start", "resume") and tgt not in active:
            active.append(tgt)
        elif act in ("stop", "pause") and tgt in active:
            active.remove(tgt)
        labels.append(f"{'+'.join(active)} on" if active else "after")
    return labels


def _segment_values(stream: Stream, k: int) -> np.ndarray | None:
    v, t = stream.exact, stream.exact_t
    if v is None or stream.cuts is None:
        return None
    seg = np.searchsorted(np.asarray(stream.cuts), t, side="right")
    return v[seg == k].astype(np.float64)


def segment_stats(streams: list[Stream], k: int) -> dict:
    """Median/p99/max of segment k pooled over runs (exact when every run kept its values)."""
    parts = [_segment_values(s, k) for s in streams]
    if all(p is not None for p in parts):
        v = np.concatenate(parts) if parts else np.zeros(0)
        if len(v) == 0:
            return {"n": 0, "median": None, "p99": None, "max": None, "exact": True}
        q = np.percentile(v, [50, 99])
        return {"n": len(v), "median": float(q[0]), "p99": float(q[1]), "max": float(v.max()), "exact": True}
    counts = sum(s.segment_hist(k) for s in streams)
    n = int(counts.sum())
    if n == 0:
        return {"n": 0, "median": None, "p99": None, "max": None, "exact": False}
    nz = np.flatnonzero(counts)
    low, width = hist.bucket_bounds(nz[[0, -1]])
    q = hist.quantiles(counts, [0.5, 0.99], float(low[0]), float(low[1] + width[1] - 1))
    return {"n": n, "median": float(q[0]), "p99": float(q[1]), "max": float(low[1] + width[1] - 1), "exact": False}


def timeline(streams: list[Stream], events_by_run: dict[str, list[dict]], unit: str) -> dict | None:
    """Before/during/after statistics of one configuration's runs, the transitions and
    the change point nearest to each event."""
    runs = [s for s in streams if s.cuts and not s.no_time]
    if not runs:
        return None
    nseg = len(runs[0].cuts) + 1
    runs = [s for s in runs if len(s.cuts) + 1 == nseg]
    labels = segment_labels(events_by_run[runs[0].run_id])
    segments = [dict(label=labels[k], **segment_stats(runs, k)) for k in range(nseg)]
    base = segments[0]["median"]
    for seg in segments:
        seg["change_pct"] = (seg["median"] - base) / base * 100 if base and seg["median"] is not None else None
    worse = np.nanargmax if in_ticks(unit) else np.nanargmin
    transitions = []
    for s in runs:
        series = binned(s)
        cps = binseg(series["median"])
        cp_t = [float(series["x"][i] - series["width"] / 2) for i in cps] if series["by"] == "t_s" else []
        for j, ev in enumerate(events_by_run[s.run_id]):
            t = ev["t_s"]
            near = min(cp_t, key=lambda c: abs(c - t)) if cp_t else None
            win = np.abs(series["x"] - t) <= 2 * series["width"]
            before = segments[j]["median"]
            item = {"run_id": s.run_id, "event": f"{ev.get('action')} {ev.get('target')}", "t_s": t,
                    "nearest_change_s": near, "distance_s": None if near is None else near - t,
                    "detected": near is not None and abs(near - t) <= TOLERANCE_BINS * series["width"],
                    "tolerance_s": TOLERANCE_BINS * series["width"]}
            if win.any() and before:
                i = int(worse(np.where(win, series["median"], np.nan)))
                item["transition_extreme"] = float(series["median"][i])
                item["transition_at_s"] = float(series["x"][i])
                item["transition_vs_before_pct"] = (float(series["median"][i]) - before) / before * 100
            transitions.append(item)
    return {"segments": segments, "transitions": transitions, "unit": unit, "ns_per_tick": runs[0].ns_per_tick,
            "detected": sum(t["detected"] for t in transitions), "events": len(transitions)}


def drift(stream: Stream, skip_n: int = 0) -> dict | None:
    """Median of the last fifth of the run against the first fifth (after the warm-up)."""
    series = binned(stream)
    y = series["median"]
    if len(y) < 10:
        return None
    if skip_n and series["by"] == "index":
        y = y[series["x"] >= skip_n]
    k = max(2, len(y) // 5)
    first, last = float(np.median(y[:k])), float(np.median(y[-k:]))
    return {"run_id": stream.run_id, "first_fifth": first, "last_fifth": last,
            "drift_pct": (last - first) / first * 100 if first else None,
            "change_points": len(binseg(y))}
