"""The `cyclictest` output: rt-tests' cyclictest (rt-tests 1.x/2.x formats), run in a
guest of your own (a Linux image whose init runs it and powers off).

Metric `cyclictest_t<N>` per measuring thread N: kind latency, the wake-up latency
cyclictest prints in us (ns with the option `nsecs`, for `cyclictest -N`), stored in ns.
- verbose (`-v`): each `<thread>:<loop>:<latency>` line is one sample;
- histogram (`-h/-H <size>`): at its footer every bucket count becomes that many
  samples of the bucket's value, and each overflow one sample of the histogram's size
  with flags bit 0 (a lower bound); its Min/Avg/Max/Total/Overflows go to meta
  (`t<N>.max_us`, ...); a histogram next to verbose lines adds meta only (the same
  wake-ups);
- the summary (`T: 0 ( 1234) P:99 I:1000 C: 1000 Min: 3 Act: 5 Avg: 4 Max: 20`): meta only
  (`t<N>.prio`, `t<N>.interval_us`, `t<N>.cycles`, `t<N>.min_us`, `.act_us`, `.avg_us`,
  `.max_us`), the latest one kept.
The begin is the first line cyclictest prints (`# /dev/cpu_dma_latency ...`, `policy:`,
`Thread N Interval:`, a value, a summary or the histogram); the end is the histogram's
footer, or the final summary after verbose values (with -q). A guest that exits after
measuring passes too (`outcome`). `FATAL: ...`, `ERROR...` and `Unable to change
scheduling policy!` fail the guest.
Caveats: a summary alone is no measurement (run it with -v or -h); a histogram's samples
all carry the time its footer arrived and verbose ones the time their line arrived (0 when
importing), not the wake-up's time; give cyclictest a -D or -l that ends before the
run's duration. Its metrics are `cyclictest_t<N>` (<N>: a thread number, as many as
cyclictest's command line starts).
"""
from __future__ import annotations

import re
from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from ..plugins import PARSERS
from .base import Event, OutputParser, plain

VALUE = re.compile(r"\s*(?P<thread>\d+):\s*(?P<loop>\d+):\s*(?P<latency>\d+)(?:\s*-?\d+)?")  # + SMI count
SUMMARY = re.compile(r"T:\s*(?P<thread>\d+)\s*\(\s*\d+\)\s*P:\s*(?P<prio>\d+)\s*I:\s*(?P<interval>\d+)\s*"
                     r"C:\s*(?P<cycles>\d+)\s*Min:\s*(?P<min>\d+)\s*Act:\s*(?P<act>\d+)\s*Avg:\s*(?P<avg>\d+)\s*"
                     r"Max:\s*(?P<max>\d+)")
ROW = re.compile(r"(?P<bucket>\d{6})(?P<counts>(?:\s+\d+)+)\s*")
FOOTER = re.compile(r"# (?P<what>Total|Min Latencies|Avg Latencies|Max Latencies|Histogram Overflows):"
                    r"(?P<values>(?:\s+\d+)*)\s*")
STARTED = re.compile(r"# /dev/cpu_dma_latency set to|policy: \S+: loadavg:|Thread \d+ Interval:")
FATAL = re.compile(r"(?:FATAL|ERROR)[:,].*|Unable to change scheduling policy.*")
FOOTER_META = {"Total": "total", "Min Latencies": "min", "Avg Latencies": "avg", "Max Latencies": "max",
               "Histogram Overflows": "overflows"}


class CyclictestOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    nsecs: bool = False  # cyclictest -N: every latency it prints is in ns


@PARSERS.register
class CyclictestParser(OutputParser):
    name: ClassVar[str] = "cyclictest"
    summary: ClassVar[str] = "rt-tests' cyclictest: verbose values, histogram, summary; per-thread latency"
    Options: ClassVar[type[BaseModel]] = CyclictestOptions
    benches: ClassVar[tuple[str, ...] | None] = ("cyclictest",)
    metric_names: ClassVar[tuple[str, ...] | None] = ("cyclictest_t<N>",)  # <N>: the thread

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.unit = "ns" if self.options.nsecs else "us"
        self._rows: list[tuple[int, list[int]]] | None = None  # histogram rows while it is printed
        self._figures: dict[str, list[int]] = {}  # the histogram footer's lines so far
        self._verbose = False

    def parse(self, line: str, now_ns: int) -> Event | None:
        text = plain(line)
        if m := VALUE.fullmatch(text):
            self.began(now_ns)
            self._verbose = True
            return self.sample(f"cyclictest_t{m['thread']}", int(m["latency"]), now_ns, self.unit, "latency")
        if self._rows is not None and (m := ROW.fullmatch(text)):
            self._rows.append((int(m["bucket"]), [int(c) for c in m["counts"].split()]))
            return None
        if m := FOOTER.fullmatch(text):
            return self._footer(m["what"], [int(v) for v in m["values"].split()], now_ns)
        if m := SUMMARY.search(text):
            return self._summary(m, now_ns)
        if text.strip() == "# Histogram":
            self._rows = []
            return self.began(now_ns)
        if m := FATAL.match(text):
            return self.failed(m.group(0))
        if STARTED.match(text):
            return self.began(now_ns)
        return None

    def _summary(self, m: re.Match, now_ns: int) -> Event | None:
        event = self.began(now_ns)
        t = f"t{m['thread']}"
        self.meta.update({f"{t}.prio": m["prio"], f"{t}.interval_us": m["interval"], f"{t}.cycles": m["cycles"],
                          **{f"{t}.{k}_{self.unit}": m[k] for k in ("min", "act", "avg", "max")}})
        if self._verbose:  # verbose mode prints a summary only when cyclictest -q is done
            return self.ended() or event
        return event

    def _footer(self, what: str, values: list[int], now_ns: int) -> Event | None:
        """One footer line of the histogram; its overflows line (the last with figures)
        turns the histogram into samples and ends the guest's measurement."""
        self._figures[what] = values
        if what != "Histogram Overflows":
            return None
        # -H adds a summary column to every line but Min and Avg
        threads = len(self._figures.get("Min Latencies") or self._figures.get("Avg Latencies") or values)
        for line, figures in self._figures.items():
            key = FOOTER_META[line] + ("" if line in ("Total", "Histogram Overflows") else f"_{self.unit}")
            self.meta.update({f"t{i}.{key}": str(v) for i, v in enumerate(figures[:threads])})
        rows, self._rows, self._figures = self._rows or [], None, {}
        event = None
        if not self._verbose and rows:
            import numpy as np  # a plug-in: NumPy only once there is a histogram (parsers/base.py)
            buckets = np.array([b for b, _ in rows])
            size = int(buckets.max()) + 1
            for i in range(threads):
                name = f"cyclictest_t{i}"
                counts = np.array([c[i] if i < len(c) else 0 for _, c in rows])
                if counts.any():
                    event = self.samples(name, np.repeat(buckets, counts), now_ns, self.unit, "latency")
                if i < len(values) and values[i]:
                    event = self.samples(name, np.full(values[i], size), now_ns, self.unit, "latency", flags=1)
        end = self.ended()
        return event or end  # SAMPLE: the runner stores samples on that event

    def outcome(self, exit_code: int | None, reached_duration: bool = False) -> tuple[str, str]:
        """Pass also when the guest exited after measuring (cyclictest ran its -D/-l)."""
        if exit_code is not None and self.begin is not None and self.sample_count and not self.errors:
            return "pass", ""
        return super().outcome(exit_code, reached_duration)
