"""One streaming pass over the stored samples: every run's samples.parquet is read in
record batches, a span of row groups at a time (never whole), and fed to one
accum.Stream per (run, metric). Columns the file's statistics prove constant (flags,
warmup, a single metric) are not read.

Runs are scanned in parallel threads (pyarrow decoding and numpy release the GIL);
memory is bounded by a batch's buffers times the threads plus the accumulators, whatever
the run's length: a span of row groups is one batch (Arrow decodes a span whole), a stream
sure to outgrow accum.EXACT_LIMIT keeps no exact values on the way there, and the pass
gives its freed buffers back to the system when it ends (results/memory.py).
Warm-up samples (the `warmup` column: run.warmup_s and warm-up runs) are dropped unless
asked for; `skip` drops the first N samples of a stream (a detected ramp-up).
Deadlines are converted to counter ticks with each run's own frequency; a metric an
instrument measured from the host (clock = "host": xtalk.instruments) counts in ns.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..results.records import RecordError, read_events
from ..results.memory import release
from . import accum
from .accum import Stream, micro_block

BATCH = 1 << 18
SPAN_ROWS = BATCH  # rows per read of consecutive row groups (Arrow decodes them whole: 13 MB at 2 columns)
USE_THREADS = False  # runs are scanned in parallel already; nested decode threads oversubscribe
COLUMNS = ["value", "t_s", "metric", "flags", "warmup"]
HOST_HZ = 1e9  # the tick of a metric on the host's clock: its values are ns


def timeline_events(run_dir: Path, origin_host_ns: float | None = None) -> list[dict]:
    """The run's executed timeline events (kind=timeline), in time order, with t_s on the
    run's final time origin (meta origin_host_ns) as the samples' t_s, like results/query.py."""
    out = []
    for rec in read_events(run_dir / "events.jsonl"):
        if rec.get("kind") != "timeline":
            continue
        if origin_host_ns is not None and rec.get("host_ns") is not None:
            rec["t_s"] = (rec["host_ns"] - origin_host_ns) / 1e9
        if rec.get("t_s") is not None:
            out.append(rec)
    return sorted(out, key=lambda r: r["t_s"])


def deadline_ticks(deadlines: list[dict], metric: str, freq_hz: float | None) -> tuple[float, ...]:
    out = []
    for d in deadlines:
        if d.get("metric") != metric:
            out.append(np.inf)
        elif d.get("cycles") is not None:
            out.append(float(d["cycles"]))
        else:
            out.append(float(d["ns"]) * freq_hz / 1e9 if freq_hz else np.nan)
    return tuple(out)


def _constant(pf: pq.ParquetFile, column: str):
    """The one value `column` holds in every row when the file's statistics prove it
    (then the column is not read at all), else None."""
    j = pf.schema_arrow.names.index(column)
    values = set()
    for i in range(pf.metadata.num_row_groups):
        st = pf.metadata.row_group(i).column(j).statistics
        if st is None or not st.has_min_max or st.null_count or st.min != st.max:
            return None
        values.add(st.max)
    return values.pop() if len(values) == 1 else None


def _all_zero(pf: pq.ParquetFile, column: str) -> bool:
    """True when `flags` / `warmup` are proven 0 / false everywhere."""
    return pf.metadata.num_row_groups > 0 and _constant(pf, column) in (0, False)


def _row_group_spans(pf: pq.ParquetFile) -> list[list[int]]:
    """The file's row groups in consecutive spans of at least SPAN_ROWS rows, each ending
    where the rows so far are a whole number of batches when the row groups allow (then
    the batches are the same as over the whole file), at most 4 * SPAN_ROWS rows."""
    spans, span, span_rows, rows = [], [], 0, 0
    for i in range(pf.metadata.num_row_groups):
        n = pf.metadata.row_group(i).num_rows
        span.append(i)
        span_rows, rows = span_rows + n, rows + n
        if (span_rows >= SPAN_ROWS and rows % BATCH == 0) or span_rows >= 4 * SPAN_ROWS:
            spans.append(span)
            span, span_rows = [], 0
    return spans + [span] if span else spans


def _batches(pf: pq.ParquetFile, columns: list[str]):
    """Record batches of `columns`, one span of row groups after another: across the row
    groups it is given pyarrow reads ahead without bound, and memory would grow with the
    run's length."""
    for span in _row_group_spans(pf):
        yield from pf.iter_batches(batch_size=BATCH, row_groups=span, columns=columns, use_threads=USE_THREADS)


def scan_run(run_dir: Path, meta: dict, deadlines: list[dict], include_warmup: bool,
             skip: dict[str, int] | None = None, cuts: tuple[float, ...] | None = None) -> dict[str, Stream]:
    path = run_dir / "samples.parquet"
    if not path.is_file():
        return {}
    pf = pq.ParquetFile(path)
    names = pf.schema_arrow.names
    only_metric = _constant(pf, "metric") if pf.metadata.num_rows else None
    cols = [c for c in COLUMNS if c in names and not (c in ("flags", "warmup") and _all_zero(pf, c))
            and not (c == "metric" and only_metric is not None)]
    micro = micro_block(pf.metadata.num_rows)
    # every row is the stream's (one metric, no warm-up dropped): its length is known before it is read
    whole = only_metric is not None and (include_warmup or "warmup" not in cols)
    freq = meta.get("freq_hz")
    freq = float(freq) if freq else None
    host_clock = {m["name"] for m in (meta.get("metrics") or {}).values() if m.get("clock") == "host"}
    streams: dict[str, Stream] = {}
    seen: dict[str, int] = {}
    skip = skip or {}
    for batch in _batches(pf, cols):
        col = dict(zip(cols, batch.columns))
        value = col["value"].to_numpy(zero_copy_only=False)
        t_s = col["t_s"].to_numpy(zero_copy_only=False) if "t_s" in col else np.full(len(value), np.nan)
        flags = col["flags"].to_numpy(zero_copy_only=False) if "flags" in col else None
        keep = None
        if not include_warmup and "warmup" in col and col["warmup"].null_count < len(value):
            warm = col["warmup"].to_numpy(zero_copy_only=False)
            if warm.any():
                keep = ~warm.astype(bool)
        metric_col = col.get("metric")
        if metric_col is None:  # one metric in the whole file (its statistics say which)
            labels, codes = [only_metric], np.zeros(len(value), np.int8)
        elif hasattr(metric_col, "indices"):
            codes = metric_col.indices.to_numpy(zero_copy_only=False)
            labels = metric_col.dictionary.to_pylist()
        else:
            labels, codes = np.unique(np.asarray(metric_col.to_pylist(), dtype=object), return_inverse=True)
            labels = list(labels)
        if len(labels) == 1:
            present = [0] if len(codes) else []
        else:
            present = np.flatnonzero(np.bincount(codes, minlength=len(labels)))
        for code in present:
            name = str(labels[int(code)])
            sel = codes == code if len(present) > 1 else None
            if keep is not None:
                sel = keep if sel is None else sel & keep
            v, t, f = (value, t_s, flags) if sel is None else (value[sel], t_s[sel], flags[sel] if flags is not None else None)
            drop = skip.get(name, 0) - seen.get(name, 0)
            seen[name] = seen.get(name, 0) + len(v)
            if drop > 0:
                v, t = v[drop:], t[drop:]
                f = f[drop:] if f is not None else None
            if len(v) == 0:
                continue
            stream = streams.get(name)
            if stream is None:
                hz = HOST_HZ if name in host_clock else freq
                keep_exact = not whole or pf.metadata.num_rows - skip.get(name, 0) <= accum.EXACT_LIMIT
                stream = streams[name] = Stream(meta["run_id"], name, hz, micro,
                                                deadline_ticks(deadlines, name, hz), cuts, keep_exact)
            stream.add(np.ascontiguousarray(v, dtype=np.uint64), np.ascontiguousarray(t, dtype=np.float64), f)
    return streams


def scan(store_path: Path, runs: list[dict], events: dict[str, list[dict]], deadlines: list[dict],
         include_warmup: bool = False, skip: dict[tuple[str, str], int] | None = None, threads: int | None = None,
         unreadable: dict[str, RecordError] | None = None) -> dict[tuple[str, str], Stream]:
    """Streams keyed by (run_id, metric) for the given run metadata, cut at each run's
    timeline `events` (timeline_events, by run id). A run whose samples fail to read
    raises RecordError, or with `unreadable` is recorded there and gives none."""
    skip = skip or {}

    def one(meta: dict) -> dict[str, Stream]:
        run_dir = store_path / "runs" / meta["run_id"]
        cuts = tuple(e["t_s"] for e in events.get(meta["run_id"]) or ()) or None
        per = {m: k for (r, m), k in skip.items() if r == meta["run_id"]}
        try:
            return scan_run(run_dir, meta, deadlines, include_warmup, per, cuts)
        except (OSError, pa.ArrowException) as err:
            error = RecordError(run_dir / "samples.parquet", f"unreadable ({err})")
            if unreadable is None:
                raise error from err
            unreadable[meta["run_id"]] = error
            return {}

    threads = min(threads or min(4, os.cpu_count() or 1), len(runs))
    out: dict[tuple[str, str], Stream] = {}
    release()  # what came before (a run's finalising) freed, so that the pass's buffers add to the data only
    # one thread's work is done in this one: a worker's malloc arena kept 2-8 MB of the pass resident
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        for meta, streams in zip(runs, pool.map(one, runs) if threads > 1 else map(one, runs)):
            for name, stream in streams.items():
                stream.compact()
                out[(meta["run_id"], name)] = stream
    release()
    return out
