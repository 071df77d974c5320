"""Write a campaign's report directory: report.html (self-contained), report.md with
plots/*.png, report.json (everything computed, the headline and the report's sections), stats.csv (per configuration and per
run), evidence.json (a channel study's or search's, report/interference.py), samples.parquet (every stored sample of every run, copied 64 Ki rows at a time,
never loaded whole) and junit.xml (the gates).
The directory is written whole next to its place and put there at the end (report_dir,
files.atomic_dir): an interrupted report leaves the previous one as it was. A directory
there that holds files no report writes is refused rather than replaced.
The samples are copied first, and the copy's freed buffers given back (results/memory.py):
`xtalk report` copies them before it analyses (cli/report_cmd.py), while the libraries the
analysis and the plots load (SciPy, Matplotlib) are not there yet to add to its peak.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ..analysis.describe import QUANTILES, STAT_KEYS
from ..analysis.result import clean
from ..files import atomic_dir, atomic_path, write_atomic
from ..errors import Problem, SpecError
from ..results.memory import release
from . import html, interactive, markdown, plots
from .interference import evidence
from .junit import junit_xml
from .sections import Report, report_of

EXPORT_BATCH = 1 << 16  # rows read and written at a time (finalize.CHUNK: a run's row group)
SAMPLES = "samples.parquet"

METHOD_NOTES = [
    "Quantiles: linear interpolation between order statistics (numpy default, DuckDB quantile_cont); exact "
    "while a run has at most 2^20 samples, else from a log-linear histogram with relative error < 0.05%.",
    "sd uses n-1; skewness is the adjusted Fisher-Pearson G1, kurtosis the excess kurtosis G2 (0 for a "
    "normal distribution), both bias-corrected (scipy bias=False). WCET = observed maximum.",
    "Time = counter ticks x 1e9 / the run's counter frequency (reported by the guest).",
    "Baseline: the configuration with placement=solo (or the gates' baseline) and the same other dimensions. "
    "A run (one boot) is the unit of evidence: each run gives one value of the metric kind's statistic (median of "
    "a duration, p99 of a latency, stolen time of gaps...); changes are compared on the log scale (ratios) or as "
    "differences (shares, rates), with a 95% t-interval over runs and an exact permutation test over run labels. "
    "Paired design: on- against off-windows of the same runs, sign-flip test over cycles.",
    "Noise floor: the change an A/A comparison of the same design stays within with probability 1 - alpha, "
    "from the baseline's own runs (or the off-windows); minimum detectable effect: what the design finds with 80% "
    "power. Interference = p < alpha and a change above the floor and the negligible change; no interference = the 95% "
    "interval inside the negligible change; else inconclusive, with the units that would decide it.",
    "Warm-up: MSER-5 truncation point; significant when Mann-Whitney p < 0.001 and >= 1% median difference.",
    "Change points: binary segmentation of per-bin medians (200 bins per run), penalty 3 sigma^2 ln(m).",
    "pWCET: GEV on block maxima (blocks of a power of two >= 16 samples) and GPD over the top 2% (100..4000) "
    "samples; Ljung-Box, runs test and KS between halves at alpha 0.01 on the fitted series; fit checked by "
    "KS and Anderson-Darling; refused with the reason when any check fails or n < 1000.",
    "Gates decide PASS/FAIL (exit status); verdicts say what the evidence shows.",
]


def stats_csv(res: dict, path: Path) -> None:
    keys = list(STAT_KEYS) + [f"{k}_ns" for k in ("min", *QUANTILES, "max", "mean", "sd", "wcet")]
    cols = ["scope", "config_id", "run_id", "metric", "unit", *keys, "exact_quantiles", "ns_per_tick", "overflow"]
    with atomic_path(path) as tmp, open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for scope, rows in (("config", res["stats"]), ("run", res["stats_runs"])):
            for r in rows:
                w.writerow({"scope": scope, "unit": res["units"].get(r["metric"], "cycles"), **r})


def export_samples(files: list[Path], path: Path) -> int:
    """Concatenate every run's samples.parquet (the last attempt of each run whose files
    can be read), one row group at a time (bounded memory), short runs' batches gathered
    into row groups of at most EXPORT_BATCH rows (a row group a run made the export of
    10,000 runs slow); runs whose schema differs (another xtalk version) go through DuckDB
    instead. `files`: the runs' samples.parquet (RunIndex.sample_files)."""
    try:
        return _export(files, path)
    finally:
        release()


def _export(files: list[Path], path: Path) -> int:
    if not files:
        return 0
    schema = pq.read_schema(files[0])
    if any(not pq.read_schema(f).equals(schema) for f in files[1:]):
        import duckdb  # only here: 28 MB resident that every report would carry

        con = duckdb.connect()
        con.execute("SET memory_limit='1GB'")
        con.execute("SET preserve_insertion_order=false")
        names = [str(f) for f in files]
        with atomic_path(path) as tmp:
            con.execute(f"COPY (SELECT * FROM read_parquet({names!r}, union_by_name=true)) TO '{tmp}' "
                        "(FORMAT parquet, COMPRESSION zstd)")
        return int(con.execute(f"SELECT count(*) FROM read_parquet('{path}')").fetchone()[0])
    rows, pending, pending_rows = 0, [], 0
    with atomic_path(path) as tmp, pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
        for f in files:
            pf = pq.ParquetFile(f)
            for i in range(pf.metadata.num_row_groups):  # one at a time: across them pyarrow reads ahead
                # in batches: a run finalised by an older xtalk has row groups of 4 Mi rows
                for batch in pf.iter_batches(batch_size=EXPORT_BATCH, row_groups=[i], use_threads=False):
                    if pending_rows + batch.num_rows > EXPORT_BATCH:
                        writer.write_table(pa.Table.from_batches(pending))
                        pending, pending_rows = [], 0
                    pending.append(batch)
                    rows += batch.num_rows
                    pending_rows += batch.num_rows
        if pending:
            writer.write_table(pa.Table.from_batches(pending))
    return rows


def report_json(res: dict, report: Report) -> dict:
    """report.json: the analysis result, its headline (headline.py) and the sections the
    report shows (key, title, heading, the keys of their data)."""
    return {**res, "headline": report.header.headline, "sections": [s.json() for s in report.computed()]}


REPORT_FILES = {"report.html", "report.md", "report.json", "stats.csv", "junit.xml", "plots.json", "evidence.json",
                "samples.parquet", "plots"}


@contextmanager
def report_dir(dest: Path) -> Iterator[Path]:
    """The temporary directory to write a report into, put in place of `dest` (a previous
    report there replaced) when the block ends; `dest` refused when it holds other files."""
    foreign = sorted({p.name for p in dest.iterdir()} - REPORT_FILES) if dest.is_dir() else []
    if foreign or (dest.exists() and not dest.is_dir()):
        raise SpecError(str(dest), [Problem("--dest", f"{dest} is not a report directory (it holds "
                                                      f"{', '.join(foreign[:5]) or 'a file'}): a report replaces its "
                                                      "whole directory; name a new or empty one")])
    with atomic_dir(dest) as tmp:
        yield tmp


def placed(written: dict[str, Path], tmp: Path, dest: Path) -> dict[str, Path]:
    """The paths write_files wrote in report_dir's `tmp`, where they are once it is `dest`."""
    return {key: dest / path.relative_to(tmp) for key, path in written.items()}


def write_report(analysis, dest: Path, samples: bool = True, report: Report | None = None) -> dict[str, Path]:
    """Write the report into `dest` (replacing a previous report there); the paths written.
    `report`: the analysis's sections, where the caller made them already (report_of)."""
    with report_dir(dest) as tmp:
        if samples:
            export_samples(analysis.sample_files, tmp / SAMPLES)
        written = write_files(analysis, tmp, report or report_of(analysis.result, analysis.options))
    return placed(written, tmp, dest)


def write_files(analysis, dest: Path, report: Report, draw_plots: bool = True) -> dict[str, Path]:
    """Write every file of the report but the samples (export_samples, before) into `dest`,
    the PNG plots only where `draw_plots`; the paths written, samples.parquet among them
    where it is there."""
    res = analysis.result
    figs = plots.campaign_plots(analysis) if draw_plots else []
    (dest / "plots").mkdir()
    plot_files = []
    for p in figs:
        name = f"plots/{p['id']}.png"
        write_atomic(dest / name, p["png"])
        plot_files.append((p["title"], name))
    out = {"html": dest / "report.html", "markdown": dest / "report.md", "json": dest / "report.json",
           "csv": dest / "stats.csv", "junit": dest / "junit.xml", "plots_json": dest / "plots.json"}
    write_atomic(out["html"], html.page(report, figs, METHOD_NOTES, interactive.section(analysis)))
    write_atomic(out["plots_json"], json.dumps([{k: p[k] for k in ("id", "kind", "metric", "title", "axes")}
                                               for p in figs], indent=1))
    write_atomic(out["markdown"], markdown.document(report, plot_files, METHOD_NOTES))
    write_atomic(out["json"], json.dumps(report_json(res, report), indent=1, allow_nan=False))
    stats_csv(res, out["csv"])
    write_atomic(out["junit"], junit_xml(report))
    if res["channels"]:
        out["evidence"] = dest / "evidence.json"
        write_atomic(out["evidence"], json.dumps(clean(evidence(res)), indent=1, allow_nan=False))
    if (dest / SAMPLES).is_file():
        out["parquet"] = dest / SAMPLES
    out["plots"] = dest / "plots"
    return out
