"""SQL over a campaign with DuckDB: views `runs`, `samples`, `events`.

`samples` reads every run's samples.parquet directly (nothing is loaded into memory
first); `runs` and `events` are built from the JSON files of the store.
"""
from __future__ import annotations

import json

import duckdb
import pyarrow as pa

from .store import CampaignStore

RUN_COLUMNS = ("run_id", "index", "config_id", "placement", "start_order", "repetition", "warmup",
               "status", "reason", "sample_count", "lost_samples", "ring_lost_samples", "freq_hz",
               "started_at", "ended_at", "backend", "origin_host_ns")
EMPTY_SAMPLES = ("SELECT NULL::VARCHAR run_id, NULL::VARCHAR config_id, NULL::VARCHAR metric, "
                 "NULL::UBIGINT seq, NULL::UBIGINT t, NULL::UBIGINT value, NULL::UINTEGER flags, "
                 "NULL::DOUBLE value_ns, NULL::DOUBLE t_s, NULL::BOOLEAN warmup WHERE false")


def _runs_table(store: CampaignStore) -> pa.Table:
    metas = store.runs()
    cols = {c: [m.get(c) for m in metas] for c in RUN_COLUMNS}
    cols["config"] = [json.dumps(m.get("config", {}), sort_keys=True) for m in metas]
    cols["freq_hz"] = [float(v) if v else None for v in cols["freq_hz"]]
    return pa.table(cols)


def _events_table(store: CampaignStore) -> pa.Table:
    rows = []
    origins = {m["run_id"]: m.get("origin_host_ns") for m in store.runs()}
    for path in sorted((store.path / "runs").glob("*/events.jsonl")):
        origin = origins.get(path.parent.name)
        for line in path.read_text().splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:  # a line cut by a kill
                continue
            host_ns = rec.pop("host_ns", None)
            t_s = rec.get("t_s")
            if origin is not None and host_ns is not None:
                t_s = (host_ns - origin) / 1e9  # on the run's final time origin; before it: negative
            rows.append({"run_id": path.parent.name, "kind": rec.pop("kind", None),
                         "host_ns": host_ns, "t_s": t_s,
                         "action": rec.get("action"), "target": rec.get("target") or rec.get("guest"),
                         "planned_s": rec.get("planned_s"), "detail": json.dumps(rec, sort_keys=True)})
    schema = pa.schema([("run_id", pa.string()), ("kind", pa.string()), ("host_ns", pa.int64()),
                        ("t_s", pa.float64()), ("action", pa.string()), ("target", pa.string()),
                        ("planned_s", pa.float64()), ("detail", pa.string())])
    return pa.Table.from_pylist(rows, schema=schema)


def connect(store: CampaignStore) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.register("runs", _runs_table(store))
    con.register("events", _events_table(store))
    files = sorted(str(p) for p in (store.path / "runs").glob("*/samples.parquet")
                   if (p.parent / "meta.json").is_file())
    if files:
        con.execute(f"CREATE VIEW samples AS SELECT * FROM read_parquet({files!r}, union_by_name=true)")
    else:
        con.execute(f"CREATE VIEW samples AS {EMPTY_SAMPLES}")
    return con
