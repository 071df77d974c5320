"""The `zephyr-latency-measure` output: Zephyr's tests/benchmarks/latency_measure
(Zephyr 3.6 and later, where every operation line starts with its dotted id).

One operation line, `<id>  - <description>  :  <N> cycles ,  <M> ns :`, is one sample of
metric <id> (kind duration: the benchmark's average time of one kernel operation, in
ns); its cycles go to meta as `cycles.<id>`. The begin is Zephyr's boot banner (or the
first operation line when the banner is missing); the end is ztest's `PROJECT EXECUTION
SUCCESSFUL`. A failed operation (`FAILED , FAILED : <why>`, e.g. a tick during the
measurement), `PROJECT EXECUTION FAILED`, a Zephyr fatal error or a failed assertion
fails the guest; the last three also end it (Zephyr halts).
Caveats: each value is already an average over CONFIG_BENCHMARK_NUM_ITERATIONS
operations, so one run gives one sample per operation (statistics need several runs);
the lines' t is their arrival time (0 when importing: the log has no times);
`metric_names` are the ids Zephyr's sources print (kernel and userspace builds), a
later Zephyr may print others (they are recorded all the same).
"""
from __future__ import annotations

import re
from typing import ClassVar

from ..plugins import PARSERS
from .base import ZEPHYR_BANNER, ZEPHYR_FATAL, Event, OutputParser, plain

_OP = r"^\s*(?P<id>\S+)\s+- (?P<what>.*?)\s*:\s*"
OPERATION = re.compile(_OP + r"(?P<cycles>\d+) cycles\s*,\s*(?P<ns>\d+) ns\s*:")
FAILED = re.compile(_OP + r"FAILED\s*,\s*FAILED\s*:\s*(?P<why>.*)")
SUCCESS = "PROJECT EXECUTION SUCCESSFUL"

_CTX = ("k_to_k", "u_to_u", "k_to_u", "u_to_k")  # which thread (kernel/user) switches to which
_MODE = ("kernel", "user")


def _operation_ids() -> tuple[str, ...]:
    """Every id latency_measure prints, in its order (src/*.c of Zephyr 3.6 to 4.3)."""
    ids = [f"thread.yield.{how}.ctx.{ctx}" for how in ("preemptive", "cooperative") for ctx in _CTX]
    ids += ["isr.resume.interrupted.thread.kernel", *(f"isr.resume.different.thread.{m}" for m in _MODE)]
    for new, by in (("kernel", "kernel"), ("user", "kernel"), ("user", "user"), ("kernel", "user")):
        ops = ("start", "suspend", "resume", "abort") if (new, by) == ("kernel", "user") else \
            ("create", "start", "suspend", "resume", "abort")
        ids += [f"thread.{op}.{new}.from.{by}" for op in ops]
    for q in ("fifo", "lifo"):
        ids += [f"{q}.put.immediate.kernel", f"{q}.get.immediate.kernel"]
        ids += [f"{q}.{op}.immediate.{m}" for m in _MODE for op in ("put.alloc", "get.free")]
        ids += [f"{q}.get.blocking.k_to_k", f"{q}.put.wake+ctx.k_to_k"]
        ids += [f"{q}.{op}.{ctx}" for ctx in _CTX for op in ("get.free.blocking", "put.alloc.wake+ctx")]
    ids += [f"events.{op}.immediate.{m}" for m in _MODE for op in ("post", "set", "wait", "wait_all")]
    ids += [f"events.{op}.{ctx}" for ctx in _CTX
            for op in ("wait.blocking", "set.wake+ctx", "wait_all.blocking", "post.wake+ctx")]
    ids += [f"semaphore.{op}.immediate.{m}" for m in _MODE for op in ("give", "take")]
    ids += [f"semaphore.{op}.{ctx}" for ctx in _CTX for op in ("take.blocking", "give.wake+ctx")]
    ids += [f"condvar.{op}.{ctx}" for ctx in _CTX for op in ("wait.blocking", "signal.wake+ctx")]
    ids += [f"stack.{op}.immediate.{m}" for m in _MODE for op in ("push", "pop")]
    ids += [f"stack.{op}.{ctx}" for ctx in _CTX for op in ("pop.blocking", "push.wake+ctx")]
    ids += [f"mutex.{op}.immediate.recursive.{m}" for m in _MODE for op in ("lock", "unlock")]
    return (*ids, "heap.malloc.immediate", "heap.free.immediate")


@PARSERS.register
class ZephyrLatencyMeasureParser(OutputParser):
    name: ClassVar[str] = "zephyr-latency-measure"
    summary: ClassVar[str] = "Zephyr's latency_measure benchmark: one sample per kernel operation, ns"
    benches: ClassVar[tuple[str, ...] | None] = ("latency_measure",)
    metric_names: ClassVar[tuple[str, ...] | None] = _operation_ids()

    def parse(self, line: str, now_ns: int) -> Event | None:
        text = plain(line)
        banner = ZEPHYR_BANNER.search(text)
        if banner:
            return self.began(now_ns, zephyr=banner.group(1))
        fatal = ZEPHYR_FATAL.search(text)
        if fatal:
            event = self.failed(fatal.group(0))
            self.ended(status="fail")
            return event
        if m := OPERATION.match(text):
            self.began(now_ns)
            self.meta[f"cycles.{m['id']}"] = m["cycles"]
            return self.sample(m["id"], int(m["ns"]), now_ns, "ns", "duration")
        if m := FAILED.match(text):
            self.began(now_ns)
            return self.failed(f"{m['id']} ({m['what']}): {m['why'] or 'FAILED'}")
        if SUCCESS in text and self.begin is not None:
            return self.ended()
        return None
