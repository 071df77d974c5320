"""Parse the guest console protocol (docs/protocol.md, section 2). Pure functions.

`parse_line` turns one console line into a Record or None (anything that is not an XT
line: hypervisor noise, kernel messages). `GuestReport` folds records into what a run
needs: BEGIN facts, META, declared metrics (name, unit, and kind/kpi where the line
has them), drained samples, histograms, errors, END.
Lines of another run id are ignored, so a stale console cannot pollute a run.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

import numpy as np

from ..results.schema import SAMPLE_DTYPE

KINDS = ("BEGIN", "META", "METRIC", "SAMPLE", "HIST", "ERROR", "END")
# What a METRIC's samples are (kind=) and which KPI class its bench belongs to (kpi=),
# docs/protocol.md section 2. Logs older than these fields carry neither.
METRIC_KINDS = ("duration", "throughput", "latency", "gap", "loss")
KPIS = ("kernel", "application", "memory", "io")
_LINE = re.compile(r"(?:^|[\s\]>:)])XT (" + "|".join(KINDS) + r")((?:\s+\S+=.*)?)\s*$")


@dataclass(frozen=True)
class Record:
    kind: str
    fields: dict[str, str]

    @property
    def run(self) -> str | None:
        return self.fields.get("run")


def parse_line(line: str) -> Record | None:
    m = _LINE.search(line.rstrip("\r\n"))
    if not m:
        return None
    try:
        tokens = shlex.split(m.group(2))
    except ValueError:  # unbalanced quote: a truncated line
        return None
    fields = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep:
            return None
        fields[key] = value
    return Record(m.group(1), fields)


def _int(value: str | None, default: int = 0) -> int:
    try:
        return int(value, 0) if value is not None else default
    except ValueError:
        return default


@dataclass
class GuestReport:
    """What one guest said so far. Feed it lines with `feed`."""

    run_id: str | None = None
    begin: dict[str, str] | None = None
    meta: dict[str, str] = field(default_factory=dict)
    metrics: dict[int, dict[str, str]] = field(default_factory=dict)
    hist: dict[int, dict[int, int]] = field(default_factory=dict)
    errors: list[dict[str, str]] = field(default_factory=list)
    end: dict[str, str] | None = None
    _samples: list[tuple[int, int, int, int, int]] = field(default_factory=list)

    def feed(self, line: str) -> Record | None:
        rec = parse_line(line)
        if rec is None or (self.run_id is not None and rec.run != self.run_id):
            return None
        f = rec.fields
        if rec.kind == "BEGIN":
            self.begin = f
        elif rec.kind == "META":
            self.meta.update({k: v for k, v in f.items() if k != "run"})
        elif rec.kind == "METRIC":
            self.metrics[_int(f.get("id"))] = {"name": f.get("name", f"metric{f.get('id')}"),
                                               "unit": f.get("unit", "cycles"),
                                               **{k: f[k] for k in ("kind", "kpi") if k in f}}
        elif rec.kind == "SAMPLE":
            self._samples.append((_int(f.get("seq")), _int(f.get("t")), _int(f.get("value")),
                                  _int(f.get("metric")), _int(f.get("flags"))))
        elif rec.kind == "HIST":
            self.hist.setdefault(_int(f.get("metric")), {})[_int(f.get("log2_bucket"))] = _int(f.get("count"))
        elif rec.kind == "ERROR":
            self.errors.append(f)
        elif rec.kind == "END":
            self.end = f
        return rec

    def take_samples(self) -> np.ndarray:
        """Samples drained over the console since the last call."""
        out = np.array(self._samples, dtype=SAMPLE_DTYPE)
        self._samples.clear()
        return out

    @property
    def freq_hz(self) -> float | None:
        value = (self.begin or {}).get("freq_hz")
        return float(value) if value and float(value) > 0 else None

    @property
    def status(self) -> str | None:
        return (self.end or {}).get("status")


def parse_log(text: str, run_id: str | None = None) -> GuestReport:
    report = GuestReport(run_id=run_id)
    for line in text.splitlines():
        report.feed(line)
    return report
