"""Write a synthetic campaign in the store's on-disk layout (src/xtalk/results/records.py),
for benchmarks (benchmarks/bench_analysis.py) and tests of the analysis: campaign.json, runs/<id>/meta.json, events.jsonl
and samples.parquet with the derived columns finalize.py writes, generated in chunks so
1e8 samples never sit in memory. Samples are back-to-back iterations: the counter at the
end of sample i is the sum of the values so far, t_s = counter / freq. A timeline event
given `at_sample` gets the time of that sample (the executed event time).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from xtalk.results.records import SCHEMA_VERSION, event_record
from xtalk.results.samples_file import SAMPLES_SCHEMA, SAMPLES_WRITE_OPTIONS
from xtalk.results.manifest import manifest
from xtalk.results.store import save_campaign_record, save_run_record

Generator = Callable[[np.random.Generator, int, int], np.ndarray]  # (rng, first index, count) -> values


def heavy_tail(base: float = 1000.0, spread: float = 100.0) -> Generator:
    def gen(rng: np.random.Generator, start: int, n: int) -> np.ndarray:
        return (base + rng.gamma(2.0, spread, n) + rng.pareto(3.0, n) * spread / 2).astype(np.uint64)
    return gen


def with_step(gen: Generator, first: int, last: int, factor: float) -> Generator:
    """`gen` with samples first..last-1 multiplied by `factor` (a stress window)."""
    def stepped(rng: np.random.Generator, start: int, n: int) -> np.ndarray:
        values = np.asarray(gen(rng, start, n), dtype=np.float64)
        idx = np.arange(start, start + n)
        values[(idx >= first) & (idx < last)] *= factor
        return values.astype(np.uint64)
    return stepped


def write_run(path: Path, run_id: str, config: dict, n: int, gen: Generator, *, metric: str | tuple = "m",
              unit: str = "cycles", kind: str | None = "duration", freq_hz: float = 1e9, seed: int = 0, index: int = 0, status: str = "pass",
              events: list[dict] | None = None, chunk: int = 1 << 22, extra_meta: dict | None = None,
              clock: bool = True, config_id: str | None = None) -> None:
    """`metric`: a name, or a tuple of names the samples cycle through; `kind`: their
    declared metric kind (None: undeclared, as an older xtalk stored); `clock=False`
    writes t_s as NaN (a run without clock pairs); `config_id` defaults to the config's
    values joined by '-'; `extra_meta={"schema_version": 5}`: a run from before manifests.
    A finished run of format 6 or later gets its manifest, as the store writes it."""
    names = (metric,) if isinstance(metric, str) else tuple(metric)
    run_dir = path / "runs" / run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    config_id = config_id or "-".join(str(v) for v in config.values()) or "default"
    rng = np.random.default_rng(seed)
    counter = 0
    events = [dict(e) for e in events or []]
    pending = {i: e["at_sample"] for i, e in enumerate(events) if "at_sample" in e}
    ids = {k: pa.array([v]) for k, v in (("run_id", run_id), ("config_id", config_id))}
    with pq.ParquetWriter(run_dir / "samples.parquet", SAMPLES_SCHEMA, **SAMPLES_WRITE_OPTIONS) as writer:
        for start in range(0, n, chunk):
            m = min(chunk, n - start)
            values = np.asarray(gen(rng, start, m), dtype=np.uint64)
            t = counter + np.cumsum(values, dtype=np.uint64)
            for i, at in list(pending.items()):
                if start <= at < start + m:
                    events[i]["t_s"] = float(t[at - start]) / freq_hz
                    del pending[i]
            counter = int(t[-1])
            zeros = np.zeros(m, np.int32)
            codes = (np.arange(start, start + m) % len(names)).astype(np.int32)
            writer.write_table(pa.table({
                **{k: pa.DictionaryArray.from_arrays(zeros, v) for k, v in ids.items()},
                "attempt": np.ones(m, np.uint16),
                "metric": pa.DictionaryArray.from_arrays(codes, pa.array(list(names))),
                "seq": np.arange(start, start + m, dtype=np.uint64), "t": t, "value": values,
                "flags": np.zeros(m, np.uint32), "value_ns": values * (1e9 / freq_hz),
                "t_s": t * (1.0 / freq_hz) if clock else np.full(m, np.nan), "warmup": np.zeros(m, bool),
            }, schema=SAMPLES_SCHEMA))
    with open(run_dir / "events.jsonl", "w") as f:
        for ev in events:
            ev.pop("at_sample", None)
            f.write(json.dumps(event_record("timeline", int(ev["t_s"] * 1e9), ev)) + "\n")
    meta = {"run_id": run_id, "config_id": config_id, "attempt": 1, "config": config, "index": index, "status": status,
            "reason": "", "warmup": False, "repetition": 1, "sample_count": n, "lost_samples": 0,
            "ring_lost_samples": 0, "freq_hz": freq_hz, "schema_version": SCHEMA_VERSION,
            "metrics": {str(i): {"name": name, "unit": unit, **({"kind": kind} if kind else {})}
                        for i, name in enumerate(names)},
            "guest_meta": {f"window_ticks_{i}": str(counter) for i in range(len(names))},
            "duration_s": counter / freq_hz,
            **(extra_meta or {})}
    if status != "running" and meta["schema_version"] >= 6:  # as the store finishes a run (records.py's history)
        meta["files"] = manifest(run_dir)
    save_run_record(run_dir, meta)


def write_campaign(path: Path, name: str, spec: dict, runs: list[str], host: dict | None = None,
                   schema_version: int = SCHEMA_VERSION) -> Path:
    """`schema_version`: the format it claims (an older one: its runs may be of it too)."""
    (path / "runs").mkdir(parents=True, exist_ok=True)
    save_campaign_record(path, {
        "schema_version": schema_version, "name": name, "id": path.name, "created_at": "2026-01-01T00:00:00",
        "xtalk_version": "synthetic", "spec_hash": "0", "spec": {"name": name, **spec},
        "host": host or {"cpu_model": "synthetic"}, "planned_runs": runs})
    return path
