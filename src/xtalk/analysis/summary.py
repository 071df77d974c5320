"""Per-configuration descriptive statistics, computed in DuckDB over the stored samples
(streaming: works for runs larger than memory), and the change versus a baseline.

Definitions: quartiles are linear-interpolated (quantile_cont, numpy's default);
sd is the sample standard deviation; skewness and kurtosis are DuckDB's sample
estimators, kurtosis as excess kurtosis (0 for a normal distribution).
Warm-up samples (run.warmup_s, warm-up runs) are excluded unless asked for.
"""
from __future__ import annotations

import duckdb

STAT_SQL = """
SELECT s.config_id, s.metric, count(*) AS n,
       min(s.value) AS min, quantile_cont(s.value, 0.25) AS q1, median(s.value) AS median,
       quantile_cont(s.value, 0.75) AS q3, max(s.value) AS max, avg(s.value) AS mean,
       stddev_samp(s.value) AS sd, skewness(s.value) AS skew, kurtosis(s.value) AS kurtosis,
       quantile_cont(s.value, 0.90) AS p90, quantile_cont(s.value, 0.99) AS p99,
       quantile_cont(s.value, 0.999) AS p999,
       avg(s.value_ns / s.value) FILTER (WHERE s.value > 0) AS ns_per_tick,
       count(DISTINCT s.run_id) AS runs
FROM samples s JOIN runs r ON r.run_id = s.run_id
WHERE r.status IN ({statuses}) AND ({warm})
GROUP BY s.config_id, s.metric
"""


def config_stats(con: duckdb.DuckDBPyConnection, include_warmup: bool = False,
                 statuses: tuple[str, ...] = ("pass",)) -> list[dict]:
    sql = STAT_SQL.format(statuses=", ".join(f"'{s}'" for s in statuses),
                          warm="true" if include_warmup else "NOT s.warmup")
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    rows = [dict(zip(names, row)) for row in cur.fetchall()]
    order = {cid: i for i, (cid,) in enumerate(con.execute(
        "SELECT config_id FROM runs GROUP BY config_id ORDER BY min(index)").fetchall())}
    return sorted(rows, key=lambda r: (r["metric"], order.get(r["config_id"], 1 << 30)))


def change_pct(value: float | None, baseline: float | None) -> float | None:
    if value is None or not baseline:
        return None
    return (value - baseline) / baseline * 100.0


def baseline_config(con: duckdb.DuckDBPyConnection, dim: str = "placement", value: str = "solo") -> str | None:
    row = con.execute(
        "SELECT config_id FROM runs WHERE json_extract_string(config, ?) = ? ORDER BY index LIMIT 1",
        [f"$.{dim}", value]).fetchone()
    return row[0] if row else None
