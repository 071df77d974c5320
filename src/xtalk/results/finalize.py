"""Turn a run's raw append-only files into samples.parquet with derived columns.

Derived columns: metric name, value in ns (the counter frequency in the run's metadata),
t_s (seconds since the measurer started, in host time, via the clock pairs) and warmup
(t_s < run.warmup_s, or the whole run when it is a warm-up run).
Streamed: samples.bin is read CHUNK records at a time into an ordinary buffer (not a
memory map, whose pages would stay resident until the end: 32 bytes a sample) and each
chunk is written as one Parquet row group, so memory stays the same whatever the run's
length (benchmarks/bench_memory.py).
A metric declared with clock = "host" (an instrument's: xtalk.instruments) has its value
in ns and its t in host CLOCK_MONOTONIC ns already; its seq (from schema.HOST_SEQ up) is
left out of the loss count, which is the guest's.
Caveat: t_s is as good as the clock pairs: the guest-to-host offset is the smallest
observed (host read time - guest heartbeat), an upper bound tight to the poll interval.
"""
from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..files import atomic_path
from .samples_file import SAMPLES_SCHEMA, SAMPLES_WRITE_OPTIONS
from .reserve import trim_file
from .schema import HOST_SEQ, SAMPLE_DTYPE

CHUNK = 1 << 16  # records per read and per row group: ~10 MB of buffers at a time


def clock_offset_ns(path: Path, freq_hz: float) -> float | None:
    """host_ns - guest_ns, from the pairs in clock.csv (None when there are none; a line
    that is not a pair, as a crash can leave, is skipped)."""
    pairs = path / "clock.csv"
    if not pairs.is_file():
        return None
    offsets = []
    for line in pairs.read_bytes().decode(errors="replace").splitlines():
        host, _, counter = line.partition(",")
        try:
            offsets.append(int(host) - int(counter) * 1e9 / freq_hz)
        except ValueError:
            continue
    return float(min(offsets)) if offsets else None


def finalize_run(path: Path, meta: dict) -> dict:
    """Write samples.parquet (samples.bin's reserved blocks past its end freed); return
    metadata fields to merge (counts, losses, clock).
    The metrics and counter frequency are the record's (a caller that parses the run's
    console log puts them there first: xtalk.parsers.console_log)."""
    metrics = dict(meta.get("metrics") or {})
    freq = meta.get("freq_hz")
    raw_path = path / "samples.bin"
    size = raw_path.stat().st_size if raw_path.is_file() else 0
    if raw_path.is_file():
        trim_file(raw_path)  # a run killed midway left its next 64 MiB reserved
    count = size // SAMPLE_DTYPE.itemsize
    offset = clock_offset_ns(path, freq) if freq else None
    origin = meta.get("origin_host_ns")
    if offset is not None and meta.get("begin_counter") is not None:  # BEGIN on the guest clock
        origin = int(meta["begin_counter"] * 1e9 / freq + offset)
    warmup_s = float(meta.get("warmup_s") or 0.0)
    names = sorted({v["name"] for v in metrics.values()} | {"unknown"})
    name_index = {name: i for i, name in enumerate(names)}
    lookup = {int(k): name_index[v["name"]] for k, v in metrics.items()}
    host_clock = np.array([int(k) for k, v in metrics.items() if v.get("clock") == "host"], np.uint32)

    names_arr = pa.array(names, pa.string())
    highest, guest_count = -1, 0
    with atomic_path(path / "samples.parquet") as tmp, \
            pq.ParquetWriter(tmp, SAMPLES_SCHEMA, **SAMPLES_WRITE_OPTIONS) as writer, \
            (open(raw_path, "rb") if count else contextlib.nullcontext()) as raw:
        for start in range(0, max(count, 1), CHUNK):
            chunk = np.fromfile(raw, SAMPLE_DTYPE, min(CHUNK, count - start)) if raw else np.zeros(0, SAMPLE_DTYPE)
            n = len(chunk)
            uniq, inverse = np.unique(chunk["metric"], return_inverse=True)
            codes = np.array([lookup.get(int(m), name_index["unknown"]) for m in uniq], np.int32)[inverse]
            value_ns = chunk["value"] * (1e9 / freq) if freq else np.full(n, np.nan)
            if freq and offset is not None and origin is not None:
                t_s = (chunk["t"] * (1e9 / freq) + offset - origin) / 1e9
            else:
                t_s = np.full(n, np.nan)
            if len(host_clock) and n:
                host = np.isin(chunk["metric"], host_clock)
                value_ns, t_s = value_ns.astype(np.float64), t_s.astype(np.float64)
                value_ns[host] = chunk["value"][host]
                t_s[host] = (chunk["t"][host].astype(np.float64) - origin) / 1e9 if origin is not None else np.nan
            warm = np.full(n, bool(meta.get("warmup"))) | (t_s < warmup_s)
            writer.write_table(pa.table({
                "run_id": pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([meta["run_id"]])),
                "config_id": pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([meta.get("config_id", "")])),
                "attempt": np.full(n, meta.get("attempt", 1), np.uint16),
                "metric": pa.DictionaryArray.from_arrays(codes, names_arr),
                "seq": chunk["seq"], "t": chunk["t"], "value": chunk["value"], "flags": chunk["flags"],
                "value_ns": value_ns, "t_s": t_s, "warmup": warm,
            }, schema=SAMPLES_SCHEMA))
            seq = chunk["seq"]
            if n and int(seq.max()) >= HOST_SEQ:  # an instrument's samples: not the guest's to count
                seq = seq[seq < HOST_SEQ]
            if len(seq):
                highest, guest_count = max(highest, int(seq.max())), guest_count + len(seq)
    return {
        "sample_count": int(count),
        "lost_samples": int(highest + 1 - guest_count) if guest_count else 0,
        "metrics": metrics,
        "freq_hz": freq,
        "clock_offset_ns": offset,
        "origin_host_ns": origin,
    }
