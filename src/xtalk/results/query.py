"""SQL over a campaign with DuckDB.

Views `runs`, `samples`, `events`: the last attempt of every run (what the statistics
use); `all_runs`, `all_samples`, `all_events`: every attempt a --resume kept, with
`attempt` and `final`. Runs whose files cannot be read are in neither (the store lists
them: `damaged`). The samples views read each run's samples.parquet directly (nothing is
loaded into memory first), with the attempt from the run's directory (a format-1 file
has no attempt column); runs and events are built from the JSON files of the store.

Unless `allow_files`, the connection can read nothing but those samples files afterwards
(DuckDB's external access disabled, the configuration locked): a query cannot read or
write other files.
"""
from __future__ import annotations

import json

import duckdb
import pyarrow as pa

from .records import read_events
from .samples_file import SAMPLE_COLUMNS_V1 as SAMPLE_COLUMNS, SAMPLES_SCHEMA
from .store import CampaignStore, StoredRun

RUN_COLUMNS = ("run_id", "attempt", "index", "config_id", "placement", "start_order", "repetition", "warmup",
               "status", "reason", "sample_count", "lost_samples", "ring_lost_samples", "freq_hz",
               "started_at", "ended_at", "backend", "origin_host_ns")
EVENTS_SCHEMA = pa.schema([("run_id", pa.string()), ("attempt", pa.int64()), ("final", pa.bool_()),
                           ("kind", pa.string()), ("host_ns", pa.int64()), ("t_s", pa.float64()),
                           ("action", pa.string()), ("target", pa.string()), ("planned_s", pa.float64()),
                           ("detail", pa.string())])


def _runs_table(runs: list[StoredRun]) -> pa.Table:
    metas = [r.meta for r in runs]
    cols = {c: [m.get(c) for m in metas] for c in RUN_COLUMNS}
    cols["final"] = [r.final for r in runs]
    cols["config"] = [json.dumps(m.get("config", {}), sort_keys=True) for m in metas]
    cols["bench"] = [(m.get("measurer") or {}).get("bench") for m in metas]  # the measurer's
    cols["freq_hz"] = [float(v) if v else None for v in cols["freq_hz"]]
    return pa.table(cols)


def _events_table(runs: list[StoredRun]) -> pa.Table:
    rows = []
    for run in runs:
        origin = run.meta.get("origin_host_ns")
        for rec in read_events(run.dir / "events.jsonl"):
            host_ns = rec.pop("host_ns", None)
            t_s = rec.get("t_s")
            if origin is not None and host_ns is not None:
                t_s = (host_ns - origin) / 1e9  # on the run's final time origin; before it: negative
            rows.append({"run_id": run.meta["run_id"], "attempt": run.meta["attempt"], "final": run.final,
                         "kind": rec.pop("kind", None), "host_ns": host_ns, "t_s": t_s,
                         "action": rec.get("action"), "target": rec.get("target") or rec.get("guest"),
                         "planned_s": rec.get("planned_s"), "detail": json.dumps(rec, sort_keys=True, default=str)})
    return pa.Table.from_pylist(rows, schema=EVENTS_SCHEMA)


def _table(con: duckdb.DuckDBPyConnection, name: str, data: pa.Table) -> None:
    """A DuckDB table holding `data` (not a view of the Python object: it outlives it)."""
    con.register("_arrow", data)
    con.execute(f"CREATE TABLE {name} AS SELECT * FROM _arrow")
    con.unregister("_arrow")


def _sql_list(paths: list[str]) -> str:
    return "[" + ", ".join("'" + p.replace("'", "''") + "'" for p in paths) + "]"


def _samples_view(con: duckdb.DuckDBPyConnection, name: str, files: list[str]) -> None:
    cols = ", ".join(f"s.{c}" for c in SAMPLE_COLUMNS)
    source = (f"read_parquet({_sql_list(files)}, union_by_name=true, filename=true) s "
              "JOIN sample_files f USING (filename)") if files else "empty_samples s, sample_files f WHERE false"
    con.execute(f"CREATE VIEW {name} AS SELECT {cols}, f.attempt, f.final FROM {source}")


def connect(store: CampaignStore, allow_files: bool = False) -> duckdb.DuckDBPyConnection:
    index = store.index()
    con = duckdb.connect()
    _table(con, "all_runs", _runs_table(index.runs))
    _table(con, "all_events", _events_table(index.runs))
    _table(con, "damaged", pa.Table.from_pylist([d.row(store.path) for d in index.damaged], schema=pa.schema(
        [("run", pa.string()), ("config_id", pa.string()), ("status", pa.string()), ("final", pa.bool_()),
         ("file", pa.string()), ("reason", pa.string())])))
    files = [(str(r.dir / "samples.parquet"), r) for r in index.runs if r.meta["status"] != "running"]
    _table(con, "sample_files", pa.table({"filename": [f for f, _ in files],
                                          "attempt": pa.array([r.meta["attempt"] for _, r in files], pa.int64()),
                                          "final": pa.array([r.final for _, r in files], pa.bool_())}))
    _table(con, "empty_samples", SAMPLES_SCHEMA.empty_table().select(SAMPLE_COLUMNS).cast(pa.schema(
        [pa.field(f.name, f.type.value_type if pa.types.is_dictionary(f.type) else f.type)
         for f in SAMPLES_SCHEMA if f.name != "attempt"])))
    _samples_view(con, "all_samples", [f for f, _ in files])
    _samples_view(con, "samples", [f for f, r in files if r.final])
    con.execute("CREATE VIEW runs AS SELECT * FROM all_runs WHERE final")
    con.execute("CREATE VIEW events AS SELECT * FROM all_events WHERE final")
    if not allow_files:
        con.execute(f"SET allowed_paths = {_sql_list([f for f, _ in files])}")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    return con
