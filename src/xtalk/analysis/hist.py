"""Log-linear histogram of non-negative integer samples (counter ticks), HDR-style.

Values below 2**SUB_BITS get one bucket each (exact); above, every power of two is cut
into 2**(SUB_BITS-1) equal buckets, so a bucket is at most 1/2048 of its lower bound
wide. Histograms add (merge across batches, runs, configurations), which is what lets
quantiles of 1e8 samples be computed in one streaming pass with bounded memory.
Quantiles follow the linear-interpolation definition (numpy's default, DuckDB's
quantile_cont) with each order statistic placed by rank inside its bucket; the error is
below one bucket width (relative 4.9e-4), and zero while values are < 4096.
Caveat: values >= 2**53 lose precision in the float64 used to find the octave.
"""
from __future__ import annotations

import numpy as np

SUB_BITS = 12
HALF = 1 << (SUB_BITS - 1)
NBUCKETS = (64 - SUB_BITS + 2) * HALF
EXACT = 1 << SUB_BITS  # values below it have a bucket each: their own value
REL_ERROR = 1.0 / HALF
FLOAT_EXACT = 1 << 53  # every integer below it is exact as a float64


def _by_shift(v: np.ndarray, f: np.ndarray) -> np.ndarray:
    """bucket_index by its definition: the value shifted right by how far its octave lies
    above the exact range (the octave from the float's exponent), plus HALF buckets per octave."""
    # the float's biased exponent is bit_length - 1 + 1023 (exact below 2**53)
    shift = np.right_shift(f.view(np.int64), 52)
    np.subtract(shift, 1022 + SUB_BITS, out=shift)
    np.maximum(shift, 0, out=shift)
    idx = np.right_shift(v, shift.view(np.uint64)).view(np.int64)
    np.left_shift(shift, SUB_BITS - 1, out=shift)
    idx += shift
    return idx  # < NBUCKETS for every uint64: the top octave has shift 53


def bucket_index(values: np.ndarray, as_float: np.ndarray | None = None) -> np.ndarray:
    """Bucket of each uint64 value (int64 array, all < NBUCKETS); `as_float`: the same
    values as float64 when the caller has them already.
    The buckets of _by_shift, in one array and fewer passes: a value below 2**53 is exact
    as a float, whose bits from the 41st up (the exponent, then the top SUB_BITS - 1 bits
    of the mantissa) are its bucket plus a constant when the value is at least HALF; a
    value below HALF is its own bucket; the few from 2**53 on go by _by_shift."""
    v = np.asarray(values, dtype=np.uint64)
    f = v.astype(np.float64) if as_float is None else as_float
    idx = np.right_shift(f.view(np.int64), 52 - (SUB_BITS - 1))
    idx -= (1022 + SUB_BITS - 1) * HALF
    if len(v) and v.min() < HALF:
        np.copyto(idx, v.view(np.int64), where=v < HALF)
    if len(v) and v.max() >= FLOAT_EXACT:
        big = np.flatnonzero(v >= FLOAT_EXACT)
        idx[big] = _by_shift(v[big], f[big])
    return idx


def bucket_bounds(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lowest value, width) of buckets `idx`."""
    idx = np.asarray(idx, dtype=np.int64)
    shift = np.maximum((idx >> (SUB_BITS - 1)) - 1, 0)
    mant = idx - (shift << (SUB_BITS - 1))
    low = mant.astype(np.float64) * np.exp2(shift)
    return low, np.exp2(shift)


def histogram_span(values: np.ndarray, as_float: np.ndarray | None = None) -> tuple[int, np.ndarray]:
    """(first bucket, counts) of the buckets from the lowest to the highest the values use
    (the first and last counts are not 0; (0, an empty array) for no values): a batch's
    values use a few thousand of the NBUCKETS buckets, which are neither cleared nor
    searched for it. Values below EXACT are their own bucket: when most are, they are
    counted as they are (no bucket_index, three times faster) and the few others moved to
    their buckets."""
    v = np.asarray(values, dtype=np.uint64)
    if not len(v):
        return 0, np.zeros(0, np.int64)
    above = v >= EXACT
    n_above = np.count_nonzero(above)
    if n_above > len(v) // 4:
        idx = bucket_index(v, as_float)
        first = int(idx.min())
        return first, np.bincount(np.subtract(idx, first, out=idx))
    counts = np.bincount(np.minimum(v, EXACT - 1).view(np.int64), minlength=EXACT)
    if n_above:
        counts[EXACT - 1] -= n_above
        moved = np.bincount(bucket_index(v[above]))  # from bucket 0: its first EXACT are 0
        moved[:EXACT] = counts
        counts = moved
    used = np.flatnonzero(counts)
    return int(used[0]), counts[used[0]:used[-1] + 1]


def histogram(values: np.ndarray, as_float: np.ndarray | None = None) -> np.ndarray:
    """Counts per bucket (int64, NBUCKETS): histogram_span's, every bucket."""
    first, counts = histogram_span(values, as_float)
    out = np.zeros(NBUCKETS, np.int64)
    out[first:first + len(counts)] = counts
    return out


def order_statistics(hist: np.ndarray, ranks: np.ndarray, vmin: float, vmax: float) -> np.ndarray:
    """Estimated sorted-order values x_(r) (0-based ranks) from a histogram."""
    cum = np.cumsum(hist)
    ranks = np.asarray(ranks, dtype=np.float64)
    b = np.searchsorted(cum, ranks, side="right")
    b = np.minimum(b, len(hist) - 1)
    before = np.where(b > 0, cum[np.maximum(b - 1, 0)], 0)
    count = np.maximum(hist[b], 1)
    low, width = bucket_bounds(b)
    est = low + (ranks - before + 0.5) / count * (width - 1.0)
    return np.clip(est, vmin, vmax)


def quantiles(hist: np.ndarray, qs, vmin: float, vmax: float) -> np.ndarray:
    """quantile_cont estimates for probabilities qs from a histogram."""
    n = int(hist.sum())
    qs = np.atleast_1d(np.asarray(qs, dtype=np.float64))
    if n == 0:
        return np.full(len(qs), np.nan)
    h = (n - 1) * qs
    lo = np.floor(h)
    hi = np.minimum(lo + 1, n - 1)
    xs = order_statistics(hist, np.concatenate([lo, hi]), vmin, vmax)
    xlo, xhi = xs[: len(qs)], xs[len(qs):]
    return xlo + (h - lo) * (xhi - xlo)


def nonzero(hist: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(bucket lower bounds, widths, counts) of the non-empty buckets, for plots."""
    idx = np.flatnonzero(hist)
    low, width = bucket_bounds(idx)
    return low, width, hist[idx]
