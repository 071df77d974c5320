"""The `zephyr-thread-metric` output: Zephyr's tests/benchmarks/thread_metric, every
variant of the Thread-Metric suite (one per image: Kconfig TM_BASIC ... TM_SYNCHRONIZATION).

Every period (TM_TEST_DURATION, 30 s by default) the test prints
`**** Thread-Metric <Name> Test **** Relative Time: <s>` and then `Time Period Total:  <N>`:
one sample of metric `tm_<name>` (its source file's name, e.g. tm_preemptive_scheduling;
kind throughput, unit count: higher is better) with t = begin's t0 + the relative time
the guest printed. The begin is Zephyr's boot banner (else the first report); the
suite never ends by itself (ends_itself False: the run ends at its duration). An
`ERROR: ...` line (the test's own check on its counters, with its `Average: ...` detail
line), a Zephyr fatal error or a failed assertion fails the guest; the last two also end
it. The cooperative test's per-thread counters go to meta (the latest period's).
Caveats: without the boot banner the first report is the begin, so every t is one
period late; a test name this file does not know gets a metric named after it
(`tm_` + its words), which `metric_names` does not list.
"""
from __future__ import annotations

import re
from typing import ClassVar

from ..plugins import PARSERS
from .base import ZEPHYR_BANNER, ZEPHYR_FATAL, Event, OutputParser, plain

# the name each test prints -> its metric (the test's source file, without _test.c)
TESTS = {
    "Preemptive Scheduling": "tm_preemptive_scheduling",
    "Basic Single Thread Processing": "tm_basic_processing",
    "Cooperative Scheduling": "tm_cooperative_scheduling",
    "Interrupt Processing": "tm_interrupt_processing",
    "Interrupt Preemption Processing": "tm_interrupt_preemption_processing",
    "Message Processing": "tm_message_processing",
    "Synchronization Processing": "tm_synchronization_processing",
    "Memory Allocation": "tm_memory_allocation",
}
REPORT = re.compile(r"\*+ Thread-Metric (?P<test>.+?) Test \*+ Relative Time:\s*(?P<s>\d+)")
TOTAL = re.compile(r"^\s*Time Period Total:\s*(?P<n>\d+)")
ERROR = re.compile(r"^\s*ERROR:\s*(?P<msg>.*)")
DETAIL = re.compile(r"^\s+Average:.*")
COUNTER = re.compile(r"^(?P<name>tm_\w+_counter):\s*(?P<n>\d+)$")


@PARSERS.register
class ZephyrThreadMetricParser(OutputParser):
    name: ClassVar[str] = "zephyr-thread-metric"
    summary: ClassVar[str] = "Zephyr's thread_metric suite (every variant): events per period, count"
    # twister's names of the variants (benchmark.thread_metric.<bench>); Zephyr's default first
    benches: ClassVar[tuple[str, ...] | None] = (
        "preemptive", "basic", "cooperative", "interrupt", "interrupt_preemption", "message",
        "synchronization", "memory_allocation")
    metric_names: ClassVar[tuple[str, ...] | None] = tuple(TESTS.values())
    ends_itself = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._period: tuple[str, int] | None = None  # (metric, relative s) of the latest report line

    def parse(self, line: str, now_ns: int) -> Event | None:
        text = plain(line)
        if banner := ZEPHYR_BANNER.search(text):
            return self.began(now_ns, zephyr=banner.group(1))
        if fatal := ZEPHYR_FATAL.search(text):
            event = self.failed(fatal.group(0))
            self.ended(status="fail")
            return event
        if m := REPORT.search(text):
            test = m["test"].strip()
            metric = TESTS.get(test) or "tm_" + re.sub(r"\W+", "_", test.lower())
            self._period = (metric, int(m["s"]))
            return self.began(now_ns)
        if (m := TOTAL.match(text)) and self._period is not None:
            metric, seconds = self._period
            self._period = None
            return self.sample(metric, int(m["n"]), int(self.begin["t0"]) + seconds * 1_000_000_000,
                               "count", "throughput")
        if m := ERROR.match(text):
            return self.failed(m["msg"])
        if DETAIL.match(text) and self.errors:
            self.errors[-1]["msg"] += f" ({text.strip()})"
            return None
        if m := COUNTER.match(text):
            self.meta[m["name"]] = m["n"]
        return None
