"""The `xt` output: xtalk's own guest console protocol (docs/protocol.md, section 2).

`parse_line` turns one console line into an Event or None (anything that is not an XT
line: hypervisor noise, kernel messages). `XtParser` folds them into what a run needs:
BEGIN facts (with t0, the guest counter), META, declared metrics (name, unit, and
kind/kpi where the line has them), samples (counter ticks at BEGIN's freq_hz; the probe
also sends most of them through the shared-memory ring, not the console), histograms,
errors, END. Lines of another run id are ignored, so a stale console cannot pollute a run.
"""
from __future__ import annotations

import re
import shlex
from typing import ClassVar

from ..plugins import PARSERS
from .base import Event, OutputParser

KINDS = ("BEGIN", "META", "METRIC", "SAMPLE", "HIST", "ERROR", "END")
# What a METRIC's samples are (kind=) and which KPI class its bench belongs to (kpi=),
# docs/protocol.md section 2. Logs older than these fields carry neither.
METRIC_KINDS = ("duration", "throughput", "latency", "gap", "loss")
KPIS = ("kernel", "application", "memory", "io")
_LINE = re.compile(r"(?:^|[\s\]>:)])XT (" + "|".join(KINDS) + r")((?:\s+\S+=.*)?)\s*$")


def parse_line(line: str) -> Event | None:
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
    return Event(m.group(1), fields)


def _int(value: str | None, default: int = 0) -> int:
    try:
        return int(value, 0) if value is not None else default
    except ValueError:
        return default


@PARSERS.register
class XtParser(OutputParser):
    """What one xtalk guest said so far."""

    name: ClassVar[str] = "xt"
    summary: ClassVar[str] = "xtalk's own guests (probe, Linux-RT, native): XT lines"
    foreign: ClassVar[bool] = False

    def parse(self, line: str, now_ns: int) -> Event | None:
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
            self._seq += 1  # the count of console samples (sample_count); their seq is the guest's
        elif rec.kind == "HIST":
            self.hist.setdefault(_int(f.get("metric")), {})[_int(f.get("log2_bucket"))] = _int(f.get("count"))
        elif rec.kind == "ERROR":
            self.errors.append(f)
        elif rec.kind == "END":
            self.end = f
        return rec

    @property
    def freq_hz(self) -> float | None:
        value = (self.begin or {}).get("freq_hz")
        return float(value) if value and float(value) > 0 else None

    def outcome(self, exit_code: int | None, reached_duration: bool = False) -> tuple[str, str]:
        if self.end is None:
            return "fail", f"measurer exited (status {exit_code}) without XT END"
        status = self.end.get("status", "")
        if status == "pass":
            return "pass", ""
        detail = self.end.get("reason") or "; ".join(e.get("msg", "") for e in self.errors)
        return "fail", f"guest reported status={status}" + (f": {detail}" if detail else "")
