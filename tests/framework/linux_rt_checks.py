"""Checks of xtalk-rt output (guests/posix) shared by the unit tests on recorded guest
logs (tests/data/linux_rt/) and the integration tests on live runs: what each benchmark
must say on the console, and consistency between what it says in different ways."""
from __future__ import annotations

import re
from collections import defaultdict

from xtalk.parsers.xt import XtParser

KERNEL_OPS = ["yield_switch", "sem_signal_wait", "sem_give_switch", "sem_take_switch", "mutex_lock",
              "mutex_unlock", "thread_create", "thread_start", "thread_terminate", "thread_create_switch",
              "thread_resume", "thread_suspend", "mq_put", "mq_get", "mq_put_wake", "mq_get_wait",
              "event_send_recv", "event_wake", "event_wait", "stack_push", "stack_pop", "queue_put",
              "queue_get", "heap_alloc", "heap_free"]
SWITCHING = {"yield_switch", "sem_give_switch", "sem_take_switch", "thread_start", "thread_terminate",
             "thread_create_switch", "thread_resume", "thread_suspend", "mq_put_wake", "mq_get_wait",
             "event_wake", "event_wait"}


def report(text: str, run: str) -> tuple[XtParser, dict[int, list[tuple[int, int]]]]:
    """The parsed report and, per metric id, the drained samples as (t, value)."""
    rep = XtParser(run_id=run)
    samples: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for line in text.splitlines():
        rec = rep.feed(line)
        if rec and rec.kind == "SAMPLE":
            samples[int(rec.fields["metric"])].append((int(rec.fields["t"]), int(rec.fields["value"])))
    return rep, samples


def names(rep: XtParser) -> dict[str, int]:
    return {m["name"]: i for i, m in rep.metrics.items()}


def check_begin(rep: XtParser, bench: str, role: str = "measurer") -> None:
    assert rep.begin is not None, "no XT BEGIN"
    assert rep.begin["bench"] == bench and rep.begin["role"] == role
    assert rep.begin["freq_hz"] == "1000000000"          # CLOCK_MONOTONIC ns
    assert int(rep.begin["t0"]) > 0
    assert rep.meta.get("sched") == "fifo" and rep.meta.get("mlockall") == "yes", rep.meta


def check_kernel_ops(text: str, run: str, iterations: int) -> dict[str, list[int]]:
    rep, samples = report(text, run)
    check_begin(rep, "kernel_ops")
    assert rep.status == "pass", rep.end
    ids = names(rep)
    assert sorted(ids) == sorted(KERNEL_OPS)
    out = {}
    for name, i in ids.items():
        values = [v for _, v in samples[i]]
        assert len(values) == iterations, (name, len(values))
        assert all(v > 0 for v in values) or name not in SWITCHING, (name, values[:10])
        assert sum(rep.hist[i].values()) == iterations, name     # log2 histogram of the same samples
        out[name] = values
    assert int(rep.end["samples"]) == iterations * len(KERNEL_OPS)
    return out


def check_cyclictest(text: str, run: str) -> list[int]:
    """-v samples vs. cyclictest's own JSON summary and histogram (printed as META)."""
    rep, samples = report(text, run)
    check_begin(rep, "cyclictest")
    assert rep.status == "pass", rep.end
    assert names(rep) == {"cyclictest_t0": 0}
    values = [v for _, v in samples[0]]
    meta = rep.meta
    cycles, tail = int(meta["ct_cycles_t0"]), int(meta["ct_unprinted_tail_t0"])
    assert int(meta["ct_lost_t0"]) == 0 and not rep.errors
    assert len(values) == cycles - tail > 0
    assert min(values) >= int(meta["ct_min_us_t0"]) * 1000
    assert max(values) <= int(meta["ct_max_us_t0"]) * 1000
    text_hist = ",".join(meta[f"ct_hist_t0_{k}"] for k in range(int(meta["ct_hist_parts_t0"])))
    hist = dict(tuple(map(int, kv.split(":"))) for kv in text_hist.split(","))
    overflows = int(meta["ct_overflows_t0"])                      # later than hist_us
    assert sum(hist.values()) + overflows == cycles                # JSON histogram: every cycle
    assert sum(v > int(meta["ct_hist_us"]) * 1000 for v in values) <= overflows
    assert min(hist) == int(meta["ct_min_us_t0"])
    for us in {v // 1000 for v in values if v <= int(meta["ct_hist_us"]) * 1000}:
        assert us in hist, us                                       # every -v value is in a JSON bucket
    assert sum(rep.hist[0].values()) == len(values)
    times = [t for t, _ in samples[0]]
    assert times == sorted(times) and times[0] > int(rep.begin["t0"])
    return values


def check_thread_metric(text: str, run: str, bench: str, threads: int, status: str = "pass") -> list[list[int]]:
    """Per interval: [total, thread0, thread1, ...]; metric 0 is the sum of the others."""
    rep, samples = report(text, run)
    check_begin(rep, bench)
    assert rep.status == status, rep.end
    ids = names(rep)
    assert ids[bench] == 0 and len(ids) == threads + 1
    assert all(ids[f"{bench}_thread{k}"] == k + 1 for k in range(threads))
    rows = [[samples[m][k][1] for m in range(threads + 1)] for k in range(len(samples[0]))]
    assert rows and all(len(samples[m]) == len(rows) for m in range(threads + 1))
    for row in rows:
        assert row[0] == sum(row[1:])
    intervals = int(re.search(r"intervals=(\d+)", text).group(1))
    assert len(rows) == intervals
    return rows


# seed 003's probe benches that xtalk-rt carries: name -> its metrics, in order
PROBE_BENCHES = {"dhrystone": ["dhrystone_ips", "dhrystone_dmips"],
                 "cachebench": ["cachebench_copy", "cachebench_rmw"],
                 "stream": ["stream_copy", "stream_scale", "stream_add", "stream_triad"]}


def check_probe_bench(text: str, run: str, bench: str, iterations: int) -> dict[str, list[int]]:
    """A probe bench run by xtalk-rt (samples drained): it passed at SCHED_FIFO, declared its
    rate metrics (kind throughput) and wrote `iterations` samples > 0 of each; name -> values."""
    rep, samples = report(text, run)
    check_begin(rep, bench)
    assert rep.status == "pass", rep.end
    assert [m["name"] for m in rep.metrics.values()] == PROBE_BENCHES[bench]
    assert all(m["kind"] == "throughput" for m in rep.metrics.values())
    values = {rep.metrics[i]["name"]: [v for _, v in samples[i]] for i in rep.metrics}
    assert all(len(v) == iterations and min(v) > 0 for v in values.values()), values
    return values


def check_hackbench(text: str, run: str, runs: int, tasks: int) -> list[int]:
    """One sample per hackbench run (its own Time:, in ns), `tasks` tasks each, all inside
    the measured window; the values in ns."""
    rep, samples = report(text, run)
    check_begin(rep, "hackbench")
    assert rep.status == "pass", rep.end
    assert names(rep) == {"hackbench": 0} and rep.metrics[0]["kind"] == "duration"
    assert int(rep.meta["hb_runs"]) == runs and int(rep.meta["hb_tasks"]) == tasks
    values = [v for _, v in samples[0]]
    assert len(values) == runs and max(values) > 0 and all(v % 1_000_000 == 0 for v in values)  # ms
    assert sum(values) <= int(rep.meta["window_ticks_0"])     # hackbench's times lie inside the window
    return values
