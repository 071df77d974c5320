"""What a stored run's measurer console log (runs/<dir>/console/measurer.log) says of its
metrics and counter frequency, read by the run's output parser: for a run whose meta.json
lacks them when it is finalized (a run killed before its measurer's lines were taken in,
one recovered as interrupted). The results layer stores runs and parses no log: its
callers hand it these facts.
"""
from __future__ import annotations

from pathlib import Path

from . import parse_log


def console_facts(run_dir: Path, meta: dict) -> dict:
    """meta.json's `metrics` and `freq_hz`, each from the record or, where it has none,
    from the console log; {} when the record has both."""
    metrics, freq = dict(meta.get("metrics") or {}), meta.get("freq_hz")
    if metrics and freq:
        return {}
    log = run_dir / "console" / "measurer.log"
    if log.is_file():
        measurer = meta.get("measurer") or {}
        report = parse_log(log.read_text(errors="replace"), measurer.get("output", "xt"), meta["run_id"],
                           measurer.get("parser"))
        metrics = {str(k): v for k, v in report.metrics.items()} | metrics  # and an instrument's, recorded
        freq = freq or report.freq_hz
    return {"metrics": metrics, "freq_hz": freq}
