"""Streaming accumulators: everything the analysis needs from one (run, metric) sample
stream, fed batch by batch in time order, mergeable across runs.

Kept per stream: count, exact min/max, central moments (merged with Pebay's formulas, so
no catastrophic cancellation), a log-linear histogram (hist.py), the exact values while
there are at most EXACT_LIMIT of them, the first HEAD samples, a uniform-stride
subsample of at most 2*SUB points (for resampling, time series and plots), maxima of
micro-blocks of a power-of-two size (block maxima for EVT at any coarser power-of-two
block), the TOPK largest samples with their position and time, counts above each
deadline, histogram-overflow flags and optional per-time-segment histograms.
Definitions: sd with ddof=1; skewness G1 and excess kurtosis G2 are the bias-corrected
sample estimators (scipy.stats.skew/kurtosis with bias=False, DuckDB's skewness/kurtosis).
"""
from __future__ import annotations

import math

import numpy as np

from . import hist

EXACT_LIMIT = 1 << 20   # keep raw values of a stream up to this many samples
HEAD = 1000             # first samples kept for ramp-up plots (thesis: first 500 iterations)
SUB = 8192              # stride subsample holds between SUB and 2*SUB points
TOPK = 4096             # largest samples kept per stream
MICRO_BLOCKS = 4096     # target number of micro-blocks per run


EMPTY_SPAN = (0, np.zeros(0, np.int64))


def added(span: tuple[int, np.ndarray], lo: int, counts: np.ndarray) -> tuple[int, np.ndarray]:
    """A histogram kept as the span of its used buckets, (first bucket, counts), with
    `counts` of the buckets from `lo` on added (widened where they fall outside). A
    stream's values use a few thousand of the 110,592 buckets: the whole histogram is
    0.9 MB, 9 GB for a campaign of 10,000 runs."""
    first, have = span
    if not len(counts):
        return span
    if not len(have):
        return lo, counts.astype(np.int64)
    start, end = min(lo, first), max(lo + len(counts), first + len(have))
    if (start, end) != (first, first + len(have)):
        grown = np.zeros(end - start, np.int64)
        grown[first - start:first - start + len(have)] = have
        have = grown
    have[lo - start:lo - start + len(counts)] += counts
    return start, have


def dense(span: tuple[int, np.ndarray]) -> np.ndarray:
    """Every bucket's count of a histogram kept as its span."""
    out = np.zeros(hist.NBUCKETS, np.int64)
    out[span[0]:span[0] + len(span[1])] = span[1]
    return out


class Moments:
    __slots__ = ("n", "mean", "m2", "m3", "m4")

    def __init__(self):
        self.n, self.mean, self.m2, self.m3, self.m4 = 0, 0.0, 0.0, 0.0, 0.0

    def add(self, x: np.ndarray) -> None:
        """Add float64 values (the array is overwritten: it is the caller's scratch copy)."""
        if len(x) == 0:
            return
        other = Moments()
        other.n = len(x)
        other.mean = float(x.mean())
        d = np.subtract(x, other.mean, out=x)
        d2 = d * d
        # not np.dot: BLAS threads busy-wait and slow the scan down several times on small hosts
        other.m2 = float(d2.sum())
        other.m3 = float(np.multiply(d2, d, out=d).sum())
        other.m4 = float(np.multiply(d2, d2, out=d2).sum())
        self.merge(other)

    def merge(self, o: "Moments") -> None:
        if o.n == 0:
            return
        if self.n == 0:
            self.n, self.mean, self.m2, self.m3, self.m4 = o.n, o.mean, o.m2, o.m3, o.m4
            return
        na, nb = float(self.n), float(o.n)
        n = na + nb
        d = o.mean - self.mean
        d2 = d * d
        m4 = (self.m4 + o.m4 + d2 * d2 * na * nb * (na * na - na * nb + nb * nb) / n ** 3
              + 6 * d2 * (na * na * o.m2 + nb * nb * self.m2) / n ** 2 + 4 * d * (na * o.m3 - nb * self.m3) / n)
        m3 = self.m3 + o.m3 + d * d2 * na * nb * (na - nb) / n ** 2 + 3 * d * (na * o.m2 - nb * self.m2) / n
        self.m2 = self.m2 + o.m2 + d2 * na * nb / n
        self.m3, self.m4 = m3, m4
        self.mean += d * nb / n
        self.n += o.n

    def stats(self) -> dict:
        n = self.n
        out = {"mean": self.mean if n else None, "sd": None, "skew": None, "kurtosis": None}
        if n > 1:
            out["sd"] = math.sqrt(self.m2 / (n - 1))
        if n > 2 and self.m2 > 0:
            g1 = math.sqrt(n) * self.m3 / self.m2 ** 1.5
            out["skew"] = g1 * math.sqrt(n * (n - 1)) / (n - 2)
        if n > 3 and self.m2 > 0:
            g2 = n * self.m4 / self.m2 ** 2 - 3.0
            out["kurtosis"] = ((n + 1) * g2 + 6) * (n - 1) / ((n - 2) * (n - 3))
        return out


def micro_block(rows: int) -> int:
    """Power-of-two micro-block size giving at most ~MICRO_BLOCKS blocks for `rows` samples."""
    return 1 << max(0, math.ceil(math.log2(max(rows, 1) / MICRO_BLOCKS)))


class Stream:
    """Accumulates one (run, metric) stream; `merged` pools several (a configuration)."""

    def __init__(self, run_id: str, metric: str, freq_hz: float | None, micro: int = 1,
                 deadlines: tuple[float, ...] = (), cuts: tuple[float, ...] | None = None, keep_exact: bool = True):
        """`keep_exact`: False for a stream known to outgrow EXACT_LIMIT (its exact values
        would be dropped there; not keeping them on the way saves up to 16 MB at the peak)."""
        self.run_id, self.metric, self.freq_hz, self.micro = run_id, metric, freq_hz, micro
        self.runs = [run_id]
        self.n, self.vmin, self.vmax = 0, math.inf, -math.inf
        self.moments = Moments()
        self._hist = EMPTY_SPAN  # (first bucket, counts): the buckets from the lowest to the highest used
        self._exact: list[tuple[np.ndarray, np.ndarray]] | None = [] if keep_exact else None
        self.head_v = np.zeros(0, np.uint64)
        self.head_t = np.zeros(0, np.float64)
        self.stride = 1
        self._sub: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._sub_len = 0
        self._bmax: list[np.ndarray] = []
        self._bmax_partial = None  # (block id, max) of the block still being filled
        self.top = (np.zeros(0, np.uint64), np.zeros(0, np.int64), np.zeros(0, np.float64))
        self.deadlines = tuple(deadlines)
        self.above = np.zeros(len(deadlines), np.int64)
        self.overflow = 0
        self.cuts = tuple(cuts) if cuts else None
        self._seg_hist = [EMPTY_SPAN] * (len(self.cuts) + 1) if self.cuts else None  # per segment, as _hist
        self.no_time = False
        self.ns_per_tick = 1e9 / freq_hz if freq_hz else None
        self.freq_spread = 0.0   # pooled: relative spread of counter frequencies between runs
        self.top_run = None      # pooled: index into self.runs of each top sample

    # -- feeding -------------------------------------------------------------------
    def add(self, v: np.ndarray, t_s: np.ndarray, flags: np.ndarray | None = None) -> None:
        m = len(v)
        if m == 0:
            return
        n0 = self.n
        self.n += m
        self.vmin = min(self.vmin, int(v.min()))
        f = v.astype(np.float64)
        lo, counts = hist.histogram_span(v, f)
        self.moments.add(f)  # overwrites f
        self._hist = added(self._hist, lo, counts)
        if self._exact is not None:
            if self.n <= EXACT_LIMIT:
                self._exact.append((v.copy(), t_s.copy()))
            else:
                self._exact = None
        if n0 < HEAD:
            self.head_v = np.concatenate([self.head_v, v[:HEAD - n0]])
            self.head_t = np.concatenate([self.head_t, t_s[:HEAD - n0]])
        self._add_sub(n0, v, t_s)
        self._add_bmax(n0, v)
        self._add_top(n0, v, t_s)
        self.vmax = max(self.vmax, int(self.top[0].max()))  # the top-K holds the maximum
        for j, d in enumerate(self.deadlines):
            if d < self.vmax:
                self.above[j] += int(np.count_nonzero(v > d))
        if flags is not None and flags.any():
            self.overflow += int(np.count_nonzero(flags & 1))
        if self.cuts is not None:
            self._add_segments(t_s, v, lo, counts)

    def _add_segments(self, t_s: np.ndarray, v: np.ndarray, lo: int, counts: np.ndarray) -> None:
        cuts = np.asarray(self.cuts)
        first, last = t_s[0], t_s[-1]
        if not (np.isfinite(first) and np.isfinite(last)):
            self.no_time = True
            return
        k0, k1 = np.searchsorted(cuts, [first, last], side="right")
        if k0 == k1 and last >= first:  # no cut inside this (time-ordered) batch
            self._seg_hist[k0] = added(self._seg_hist[k0], lo, counts)
            return
        seg = np.searchsorted(cuts, t_s, side="right")
        idx = hist.bucket_index(v)  # only here: a cut falls inside this batch
        for k in np.unique(seg):
            part = idx[seg == k]
            first = int(part.min())
            self._seg_hist[k] = added(self._seg_hist[k], first, np.bincount(part - first))

    def _add_sub(self, n0: int, v: np.ndarray, t: np.ndarray) -> None:
        while self._sub_len + len(v) // self.stride > 2 * SUB:  # widen the stride first
            self.stride *= 2
            if self._sub:
                pos, val, ts = (np.concatenate(a) for a in zip(*self._sub))
                keep = pos % self.stride == 0
                self._sub = [(pos[keep], val[keep], ts[keep])]
                self._sub_len = int(keep.sum())
        start = (-n0) % self.stride
        pos = np.arange(n0 + start, n0 + len(v), self.stride, dtype=np.int64)
        self._sub.append((pos, v[start::self.stride].copy(), t[start::self.stride].copy()))
        self._sub_len += len(pos)
        while self._sub_len > 2 * SUB:
            pos, val, ts = (np.concatenate(a) for a in zip(*self._sub))
            keep = (pos // self.stride) % 2 == 0
            self._sub = [(pos[keep], val[keep], ts[keep])]
            self._sub_len = int(keep.sum())
            self.stride *= 2

    def _add_bmax(self, n0: int, v: np.ndarray) -> None:
        mb = self.micro
        first = (-n0) % mb
        starts = np.arange(first, len(v), mb)
        if first:
            starts = np.concatenate([[0], starts])
        maxima = np.maximum.reduceat(v, starts)
        ids = (n0 + starts) // mb
        if self._bmax_partial is not None and ids[0] == self._bmax_partial[0]:
            maxima[0] = max(maxima[0], self._bmax_partial[1])
        elif self._bmax_partial is not None:
            self._bmax.append(np.array([self._bmax_partial[1]], np.uint64))
        self._bmax.append(maxima[:-1])
        self._bmax_partial = (int(ids[-1]), int(maxima[-1]))

    def _add_top(self, n0: int, v: np.ndarray, t: np.ndarray) -> None:
        tv, ti, tt = self.top
        if len(tv) >= TOPK:
            cand = np.flatnonzero(v > tv.min())
        elif len(v) > TOPK:
            cand = np.argpartition(v, len(v) - TOPK)[len(v) - TOPK:]
        else:
            cand = np.arange(len(v))
        if len(cand) == 0:
            return
        tv = np.concatenate([tv, v[cand]])
        ti = np.concatenate([ti, n0 + cand.astype(np.int64)])
        tt = np.concatenate([tt, t[cand]])
        if len(tv) > TOPK:
            keep = np.argpartition(tv, len(tv) - TOPK)[len(tv) - TOPK:]
            tv, ti, tt = tv[keep], ti[keep], tt[keep]
        self.top = (tv, ti, tt)

    def compact(self) -> None:
        """Keep what the stream holds in new arrays, one per part (the same values): called
        by the thread that goes on with the stream once fed, so that the small arrays kept
        between the batches' freed buffers in the feeding thread's heap (up to 10 MB a
        thread of glibc's) no longer hold that heap resident (results/memory.py frees it)."""
        if self._sub:
            self._sub = [tuple(np.concatenate(a) for a in zip(*self._sub))]
        if self._bmax:
            self._bmax = [np.concatenate(self._bmax)]
        self.head_v, self.head_t = self.head_v.copy(), self.head_t.copy()
        self.top = tuple(a.copy() for a in self.top)
        self._hist = (self._hist[0], self._hist[1].copy())
        if self._seg_hist is not None:
            self._seg_hist = [(first, counts.copy()) for first, counts in self._seg_hist]
        self._joined()

    # -- results ---------------------------------------------------------------------
    def _joined(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(values, t_s) kept exact, each one read-only array: the batches are joined once,
        on first use, and shared from then on (a pooled stream of one run holds no copy)."""
        if self._exact is None:
            return None
        if len(self._exact) != 1:
            joined = tuple(np.concatenate(a) for a in zip(*self._exact)) if self._exact else \
                (np.zeros(0, np.uint64), np.zeros(0))
            self._exact = [joined]
        for a in self._exact[0]:
            a.flags.writeable = False
        return self._exact[0]

    @property
    def exact(self) -> np.ndarray | None:
        """All values in time order (read-only), or None when the stream was too long to keep."""
        joined = self._joined()
        return None if joined is None else joined[0]

    @property
    def exact_t(self) -> np.ndarray | None:
        joined = self._joined()
        return None if joined is None else joined[1]

    def subsample(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(positions, values, t_s) of every stride-th sample, in time order."""
        if not self._sub:
            return np.zeros(0, np.int64), np.zeros(0, np.uint64), np.zeros(0)
        return tuple(np.concatenate(a) for a in zip(*self._sub))  # type: ignore[return-value]

    def block_maxima(self, block: int) -> np.ndarray:
        """Maxima of consecutive blocks of `block` samples (a multiple of the micro-block);
        the last, incomplete block is dropped."""
        parts = list(self._bmax)
        micro = np.concatenate(parts) if parts else np.zeros(0, np.uint64)
        if self._bmax_partial is not None and (self._bmax_partial[0] + 1) * self.micro <= self.n:
            micro = np.concatenate([micro, [self._bmax_partial[1]]]).astype(np.uint64)
        k = block // self.micro
        full = len(micro) // k
        return micro[: full * k].reshape(full, k).max(axis=1) if full else np.zeros(0, np.uint64)

    @property
    def hist(self) -> np.ndarray:
        """The histogram's counts, every one of its hist.NBUCKETS buckets (a new array)."""
        return dense(self._hist)

    def segment_hist(self, k: int) -> np.ndarray:
        """The histogram of time segment k (between the cuts), every bucket (a new array)."""
        return dense(self._seg_hist[k])

    def quantiles(self, qs) -> tuple[np.ndarray, bool]:
        """(values, exact?) of quantile_cont at probabilities qs."""
        values = self.exact
        if values is not None and len(values):
            # the float copy is percentile's own scratch: no second copy of up to 4 * EXACT_LIMIT values
            return np.percentile(values.astype(np.float64), np.asarray(qs) * 100.0, overwrite_input=True), True
        return hist.quantiles(self.hist, qs, self.vmin, self.vmax), False

    @classmethod
    def merged(cls, streams: list["Stream"]) -> "Stream":
        """Pool streams (runs of one configuration); time-dependent parts stay per run."""
        out = cls(streams[0].run_id if len(streams) == 1 else "*", streams[0].metric, None)
        out.runs = [s.run_id for s in streams]
        out.deadlines = streams[0].deadlines
        out.above = np.zeros(len(out.deadlines), np.int64)
        total = sum(s.n for s in streams)
        keep_exact = all(s._exact is not None for s in streams) and total <= 4 * EXACT_LIMIT
        out._exact = [] if keep_exact else None
        stride = max((s.stride for s in streams), default=1)
        tops = []
        ns = []
        for s in streams:
            out.n += s.n
            out.vmin, out.vmax = min(out.vmin, s.vmin), max(out.vmax, s.vmax)
            out.moments.merge(s.moments)
            out._hist = added(out._hist, *s._hist)
            if keep_exact and s.n:
                out._exact.append((s.exact, s.exact_t))
            pos, val, ts = s.subsample()
            keep = (pos // s.stride) % (stride // s.stride) == 0
            out._sub.append((pos[keep], val[keep], ts[keep]))
            if len(s.deadlines) == len(out.deadlines):
                out.above += s.above
            out.overflow += s.overflow
            tops.append(s.top)
            if s.ns_per_tick and s.n:
                ns.append((s.ns_per_tick, s.n))
        out.stride = stride
        tv = np.concatenate([t[0] for t in tops]) if tops else np.zeros(0, np.uint64)
        order = np.argsort(tv)[::-1][:TOPK]
        out.top = (tv[order], np.concatenate([t[1] for t in tops])[order], np.concatenate([t[2] for t in tops])[order])
        out.top_run = np.concatenate([np.full(len(t[0]), i) for i, t in enumerate(tops)])[order] if tops else None
        if ns:
            out.ns_per_tick = sum(a * b for a, b in ns) / sum(b for _, b in ns)
            out.freq_spread = max(a for a, _ in ns) / min(a for a, _ in ns) - 1.0
        return out
