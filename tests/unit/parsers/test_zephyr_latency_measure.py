import re

from xtalk.parsers import parse_log
from xtalk.parsers.zephyr_latency_measure import ZephyrLatencyMeasureParser as Parser

from tests.framework.repo import ROOT

LOG = (ROOT / "tests" / "data" / "zephyr" / "latency_measure-qemu_x86_64-tcg.log").read_text()
OP_LINE = re.compile(r"^(\S+)\s+- .*:\s+(\d+) cycles ,\s+(\d+) ns :", re.M)
OPS = OP_LINE.findall(LOG)


def parse(text: str):
    return parse_log(text, "zephyr-latency-measure")


def test_every_operation_line_of_the_real_log_is_one_sample_in_ns():
    assert len(OPS) == 47
    p = parse(LOG)
    samples = p.take_samples()
    assert len(samples) == len(OPS) and samples["seq"].tolist() == list(range(len(OPS)))
    names = [p.metrics[m]["name"] for m in samples["metric"]]
    assert names == [op for op, _, _ in OPS]
    assert samples["value"].tolist() == [int(ns) for _, _, ns in OPS]
    assert samples["t"].tolist() == [0] * len(OPS)  # an imported log has no times
    assert names[0] == "thread.yield.preemptive.ctx.k_to_k" and samples["value"][0] == 487
    assert names[-1] == "heap.free.immediate" and samples["value"][-1] == 631
    assert all(m["unit"] == "ns" and m["kind"] == "duration" for m in p.metrics.values())
    assert p.meta == {f"cycles.{op}": cycles for op, cycles, _ in OPS}
    assert p.begin == {"t0": "0", "zephyr": "bc01be237197"}
    assert p.end == {"status": "pass"} and p.errors == []
    assert p.outcome(0) == ("pass", "")


def test_metric_names_cover_the_log_and_the_userspace_build():
    names = Parser.metric_names
    assert len(names) == len(set(names)) == 124
    assert {op for op, _, _ in OPS} <= set(names)
    for userspace in ("thread.yield.cooperative.ctx.u_to_k", "isr.resume.different.thread.user",
                      "thread.abort.kernel.from.user", "fifo.get.free.blocking.u_to_u", "lifo.put.alloc.immediate.user",
                      "events.wait_all.immediate.user", "semaphore.give.wake+ctx.k_to_u", "condvar.signal.wake+ctx.u_to_k",
                      "stack.pop.immediate.user", "mutex.unlock.immediate.recursive.user"):
        assert userspace in names
    assert "thread.create.kernel.from.user" not in names  # a user thread cannot create a kernel thread
    assert "fifo.put.immediate.user" not in names


def test_samples_carry_their_arrival_time_and_colours_do_not_matter():
    p = Parser()
    p.feed("*** Booting Zephyr OS build v4.3.0 ***", 1_000)
    p.feed("\x1b[1;32mthread.yield.preemptive.ctx.k_to_k       - Context switch via k_yield   :"
           "    1267 cycles ,      487 ns : \x1b[0m\r\n", 5_000)
    samples = p.take_samples()
    assert p.begin["t0"] == "1000" and p.begin["zephyr"] == "v4.3.0"
    assert samples["t"].tolist() == [5_000] and samples["value"].tolist() == [487]


def test_without_the_banner_the_first_operation_begins():
    p = parse("\n".join(LOG.splitlines()[5:]))
    assert p.begin == {"t0": "0"} and p.sample_count == 47 and p.outcome(0) == ("pass", "")


def test_a_failed_operation_fails_the_guest():
    line = ("semaphore.take.blocking.k_to_k           - Take a semaphore (context switch)                  :"
            "         FAILED ,          FAILED : Error: Tick Occurred")
    p = parse(re.sub(r"^semaphore\.take\.blocking\.k_to_k .*$", line, LOG, flags=re.M))
    assert p.sample_count == 46
    assert p.errors == [{"msg": "semaphore.take.blocking.k_to_k (Take a semaphore (context switch)): "
                                "Error: Tick Occurred"}]
    status, reason = p.outcome(0)
    assert status == "fail" and "Tick Occurred" in reason


def test_project_failed_and_fatal_errors_end_the_guest_as_failed():
    p = parse(LOG.replace("PROJECT EXECUTION SUCCESSFUL", "PROJECT EXECUTION FAILED"))
    assert p.end == {"status": "fail"} and p.outcome(0) == ("fail", "guest reported: PROJECT EXECUTION FAILED")
    head = "\n".join(LOG.splitlines()[:10])
    p = parse(head + "\n[00:00:01.000,000] <err> os: >>> ZEPHYR FATAL ERROR 0: CPU exception on CPU 0\n"
              "[00:00:01.000,000] <err> os: Halting system\n")
    assert p.sample_count == 5 and p.status == "fail"
    assert p.errors == [{"msg": ">>> ZEPHYR FATAL ERROR 0: CPU exception on CPU 0"}]
    p = parse(head + "\nASSERTION FAIL [thread != NULL] @ kernel/sched.c:123\n")
    assert p.status == "fail" and p.errors[0]["msg"].startswith("ASSERTION FAIL [thread != NULL]")


def test_a_log_cut_before_the_end_or_of_something_else_fails():
    cut = parse(LOG.split("=====")[0])
    assert cut.sample_count == 47 and cut.end is None
    assert cut.outcome(0) == ("fail", "the guest exited (status 0) before the output "
                                      "'zephyr-latency-measure' parser saw its end")
    other = parse((ROOT / "tests" / "data" / "zephyr" / "thread_metric_preemptive-qemu_x86_64-tcg.log").read_text())
    assert other.sample_count == 0 and other.outcome(0)[0] == "fail"
    nothing = parse("SeaBIOS\nBooting from ROM..\nPROJECT EXECUTION SUCCESSFUL\n")
    assert nothing.begin is None and nothing.end is None
    assert nothing.outcome(0)[1] == "the guest printed nothing the output 'zephyr-latency-measure' parser recognises"
