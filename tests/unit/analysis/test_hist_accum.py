"""Streaming accumulators and the log-linear histogram against numpy/scipy on heavy-tailed
data with ties, through both the exact and the histogram path."""
import numpy as np
import pytest
import scipy.stats

from xtalk.analysis import accum
from xtalk.analysis import hist
from xtalk.analysis.accum import Moments, Stream
from xtalk.analysis.describe import describe


def heavy(n, seed=0, ties=True):
    rng = np.random.default_rng(seed)
    x = (rng.pareto(1.8, n) * 3000 + 1000).astype(np.uint64)
    if ties:
        x[rng.integers(0, n, n // 5)] = 2500  # 20% ties on one value
    return x


def feed(values, batch=7777, **kw):
    s = Stream("r", "m", 2e9, accum.micro_block(len(values)), **kw)
    t = np.arange(len(values), dtype=np.float64) * 1e-3
    for i in range(0, len(values), batch):
        s.add(values[i:i + batch], t[i:i + batch])
    return s


def test_bucket_bounds_contain_every_value():
    v = np.concatenate([np.arange(0, 20000, dtype=np.uint64), heavy(100000).astype(np.uint64),
                        np.array([2**40 + 12345, 2**52 + 1], dtype=np.uint64)])
    low, width = hist.bucket_bounds(hist.bucket_index(v))
    assert np.all((low <= v) & (v < low + width))
    big = v >= 4096
    assert np.all(width[big] / low[big] <= hist.REL_ERROR + 1e-12)
    assert np.all(width[v < 4096] == 1)



def test_bucket_index_is_its_definition_at_every_octave_edge():
    """The value shifted right by its bit length beyond SUB_BITS, plus HALF buckets per
    octave shifted; from 2**53 on, where the float rounds, the float's octave (_by_shift)."""
    rng = np.random.default_rng(2)
    edges = {(1 << k) + d for k in range(64) for d in (-2, -1, 0, 1, 2)} | set(range(3 * hist.EXACT))
    spread = rng.integers(0, 1 << 63, 5000, dtype=np.uint64) >> rng.integers(0, 63, 5000).astype(np.uint64)
    v = np.array(sorted(e for e in edges if 0 <= e < 1 << 64), dtype=np.uint64)
    v = np.concatenate([v, spread])

    def definition(x: int) -> int:
        shift = max(x.bit_length() - hist.SUB_BITS, 0)
        return (x >> shift) + shift * hist.HALF

    exact = v < hist.FLOAT_EXACT
    idx = hist.bucket_index(v)
    assert [int(i) for i in idx[exact]] == [definition(int(x)) for x in v[exact]]
    assert np.array_equal(idx[~exact], hist._by_shift(v[~exact], v[~exact].astype(np.float64)))
    assert np.array_equal(hist.bucket_index(v[::-1], v[::-1].astype(np.float64)), idx[::-1])

@pytest.mark.parametrize("qs", [[0.0, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0]])
def test_histogram_quantiles_within_bucket_error(qs):
    x = heavy(200000)
    est = hist.quantiles(hist.histogram(x), qs, float(x.min()), float(x.max()))
    ref = np.percentile(x.astype(float), np.array(qs) * 100)
    assert np.allclose(est, ref, rtol=hist.REL_ERROR, atol=1.0)
    small = np.random.default_rng(3).integers(0, 4000, 5000).astype(np.uint64)
    assert np.allclose(hist.quantiles(hist.histogram(small), qs, small.min(), small.max()),
                       np.percentile(small.astype(float), np.array(qs) * 100))


def test_moments_merge_matches_scipy_heavy_tail_with_ties():
    x = heavy(123457).astype(np.float64)
    m = Moments()
    for part in np.array_split(x, 17):
        m.add(part.copy())
    st = m.stats()
    assert st["mean"] == pytest.approx(x.mean(), rel=1e-12)
    assert st["sd"] == pytest.approx(x.std(ddof=1), rel=1e-10)
    assert st["skew"] == pytest.approx(scipy.stats.skew(x, bias=False), rel=1e-8)
    assert st["kurtosis"] == pytest.approx(scipy.stats.kurtosis(x, bias=False), rel=1e-8)


@pytest.mark.parametrize("exact_limit", [1 << 20, 1000])
def test_stream_statistics_exact_and_histogram_paths(monkeypatch, exact_limit):
    monkeypatch.setattr(accum, "EXACT_LIMIT", exact_limit)
    x = heavy(60000, seed=5)
    s = feed(x, deadlines=(5000.0, np.inf))
    row = describe(s, "cycles")
    xf = x.astype(float)
    assert row["n"] == len(x) and row["min"] == xf.min() and row["max"] == row["wcet"] == xf.max()
    assert row["exact_quantiles"] is (exact_limit > len(x))
    tol = 1e-12 if row["exact_quantiles"] else hist.REL_ERROR
    for key, q in (("q1", 25), ("median", 50), ("q3", 75), ("p90", 90), ("p99", 99), ("p999", 99.9), ("p9999", 99.99)):
        assert row[key] == pytest.approx(np.percentile(xf, q), rel=tol, abs=1), key
    assert row["skew"] == pytest.approx(scipy.stats.skew(xf, bias=False), rel=1e-8)
    assert row["kurtosis"] == pytest.approx(scipy.stats.kurtosis(xf, bias=False), rel=1e-8)
    assert row["median_ns"] == pytest.approx(row["median"] * 0.5)
    assert row["unresolved"] == ["p9999"]  # 60000 * 1e-4 = 6 < 10 samples above
    assert list(s.above) == [int((x > 5000).sum()), 0]


def test_block_maxima_top_and_subsample_are_exact():
    x = heavy(50000, seed=9, ties=False)
    s = feed(x, batch=3001)
    assert s.micro == 16
    bm = s.block_maxima(64)
    assert np.array_equal(bm, x[: len(x) // 64 * 64].reshape(-1, 64).max(axis=1))
    tv, ti, tt = s.top
    order = np.argsort(tv)[::-1]
    assert np.array_equal(tv[order][:100], np.sort(x)[::-1][:100])
    assert np.array_equal(x[ti], tv) and np.allclose(tt, ti * 1e-3)
    pos, val, ts = s.subsample()
    assert accum.SUB <= len(pos) <= 2 * accum.SUB
    assert np.all(pos % s.stride == 0) and np.array_equal(val, x[pos]) and np.all(np.diff(pos) == s.stride)
    assert np.array_equal(s.head_v, x[: accum.HEAD])


def test_merged_streams_pool_runs():
    a, b = heavy(20000, seed=1), heavy(30000, seed=2)
    m = Stream.merged([feed(a), feed(b)])
    both = np.concatenate([a, b]).astype(float)
    row = describe(m, "cycles")
    assert row["n"] == 50000 and row["median"] == pytest.approx(np.median(both))
    assert row["sd"] == pytest.approx(both.std(ddof=1), rel=1e-10)
    assert m.top[0][0] == both.max() and m.runs[m.top_run[0]] == "r"


def test_histogram_keeps_only_its_used_span_and_counts_every_bucket():
    """A stream keeps the buckets from its lowest to its highest used one (a run of a
    10,000-run campaign would hold 0.9 MB otherwise); `hist` is every bucket's count,
    fed in batches that widen the span downwards and upwards, and pooled."""
    a = np.concatenate([np.full(100, 5000), heavy(3000, seed=3), np.full(10, 2**40), np.arange(1, 50)]).astype(np.uint64)
    b = heavy(2000, seed=4)
    sa, sb = feed(a, batch=97), feed(b)
    assert len(sb._hist[1]) < hist.NBUCKETS // 2
    for s, x in ((sa, a), (sb, b)):
        assert np.array_equal(s.hist, np.bincount(hist.bucket_index(x), minlength=hist.NBUCKETS))
    pooled = Stream.merged([sa, sb]).hist
    assert np.array_equal(pooled, np.bincount(hist.bucket_index(np.concatenate([a, b])), minlength=hist.NBUCKETS))


def test_segment_histograms_count_each_time_segment(monkeypatch):
    """Per-segment histograms (a timeline's before/during/after, kept as their used span
    too): every bucket of segment k counts the samples between cut k-1 and cut k, batches
    straddling a cut included; with the raw values dropped, the segment's statistics come
    from them."""
    from xtalk.analysis.changepoints import segment_stats
    monkeypatch.setattr(accum, "EXACT_LIMIT", 100)
    x = heavy(9000, seed=6)
    x[3000:6000] *= 3
    s = feed(x, batch=1234, cuts=(3.0, 6.0))  # t = index * 1 ms: cuts at samples 3000 and 6000
    seg = np.searchsorted([3.0, 6.0], np.arange(len(x)) * 1e-3, side="right")
    assert np.bincount(seg).tolist() == [3000, 3000, 3000]
    for k in range(3):
        assert np.array_equal(s.segment_hist(k), np.bincount(hist.bucket_index(x[seg == k]), minlength=hist.NBUCKETS))
    during = segment_stats([s], 1)
    assert not during["exact"] and during["n"] == 3000
    assert during["median"] == pytest.approx(np.median(x[seg == 1]), rel=hist.REL_ERROR)


@pytest.mark.parametrize("big_share", [0.0, 0.001, 0.2, 0.3, 1.0])
def test_histogram_counts_every_value_in_its_bucket_whatever_the_share_above_the_exact_range(big_share):
    rng = np.random.default_rng(5)
    n = 20000
    small = rng.integers(0, hist.EXACT, n)
    big = rng.integers(hist.EXACT, 2**63, n, dtype=np.uint64)
    v = np.where(rng.random(n) < big_share, big, small.astype(np.uint64)).astype(np.uint64)
    v[:3] = [hist.EXACT - 1, hist.EXACT, 0]
    for values in (v, v[v >= 100]):  # the used span from bucket 0, and from further up
        expected = np.zeros(hist.NBUCKETS, np.int64)
        np.add.at(expected, hist.bucket_index(values), 1)
        assert np.array_equal(hist.histogram(values), expected)
        assert np.array_equal(hist.histogram(values, values.astype(np.float64)), expected)
        used = np.flatnonzero(expected)
        first, counts = hist.histogram_span(values)
        assert first == used[0] and np.array_equal(counts, expected[used[0]:used[-1] + 1])
    assert len(hist.histogram_span(v[:0])[1]) == 0


def test_a_compacted_stream_holds_the_same_values_in_one_part_each():
    """compact() (the scan, once a run is read) keeps every part of the stream in one new
    array: the same values; the exact ones read-only and shared by a pooled stream of one run."""
    x = heavy(50000, seed=3)
    s, fed = feed(x, batch=3001), feed(x, batch=3001)
    s.compact()
    assert len(s._sub) == len(s._bmax) == len(s._exact) == 1
    pairs = [(s.exact, fed.exact), (s.exact_t, fed.exact_t), (s.block_maxima(64), fed.block_maxima(64)),
             (s.hist, fed.hist), (s.head_v, fed.head_v), (s.head_t, fed.head_t),
             *zip(s.subsample(), fed.subsample()), *zip(s.top, fed.top)]
    assert all(np.array_equal(a, b) for a, b in pairs)
    with pytest.raises(ValueError):
        s.exact[0] = 0
    pooled = Stream.merged([s])
    assert pooled.exact is s.exact and pooled.exact_t is s.exact_t
