"""The capture-program instrument (instruments/program.py): its output read line by line,
and real programs started, stopped by their signal, killed when they ignore it, and a
failing one named with its stderr."""
import subprocess
import sys
import time

import pytest
from pydantic import ValidationError

from tests.framework.cli import gone
from xtalk.errors import InfrastructureError
from xtalk.instruments import create
from xtalk.instruments.reaper import descendants
from xtalk.instruments.program import read_output
from xtalk.spec.model import InstrumentSettings


def settings(**program) -> InstrumentSettings:
    return InstrumentSettings.model_validate({"kind": "program", "stimulus": "irq", "response": "isr",
                                              "samplerate_hz": 1_000_000, "program": program})


def test_edges_are_read_by_channel_and_direction_with_what_the_program_says(tmp_path):
    out = tmp_path / "instrument.txt"
    out.write_text("# a capture\norigin_ns 123456\nirq 10\nisr 14 rising\nisr 15 falling\nled 16\nD1.led_a-b 3\n\n"
                   "irq 110 rising\nisr 117\ndropped 2\n")
    read = read_output(out, settings(command=["x"]), "edges")
    assert read.stimulus.tolist() == [10, 110] and read.response.tolist() == [14, 117]  # falling: not a rising edge
    assert (read.origin_ns, read.dropped, read.last_tick) == (123456, 2, 117)


def test_pairs_are_a_start_and_a_stop_or_none(tmp_path):
    out = tmp_path / "instrument.txt"
    out.write_text("100 104\n200 -\n300 309\n")
    read = read_output(out, settings(command=["x"]), "pairs")
    assert read.stimulus.tolist() == [100, 200, 300] and read.response.tolist() == [104, 309]
    assert read.origin_ns is None and read.dropped == 0


@pytest.mark.parametrize("form,line,words", [
    ("edges", "irq ten", "invalid literal"), ("edges", "irq 10 up", "`<channel> <tick>`"),
    ("pairs", "100 90", "the stop tick is before the start tick"), ("pairs", "100", "`<start tick> <stop tick>`"),
    ("edges", "@@@ 12", "not a channel name: '@@@ 12'"),
    ("edges", "\x00\x9b[2J 1234 rising", "not a channel name: '\\x00\\x9b[2J 1234 rising'"),
    ("edges", "x" * 65 + " 1", "not a channel name: 'xxx")])
def test_a_bad_line_is_named_with_the_file_and_its_number(tmp_path, form, line, words):
    out = tmp_path / "instrument.txt"
    out.write_text(f"origin_ns 5\n{line}\n")
    with pytest.raises(InfrastructureError, match="instrument.txt line 2: ") as err:
        read_output(out, settings(command=["x"]), form)
    assert words in str(err.value)


def test_a_program_is_stopped_by_its_signal_and_its_output_is_the_capture(tmp_path):
    script = ("import signal, sys, time\nsignal.signal(signal.SIGINT, lambda *a: sys.exit(0))\n"
              "print('origin_ns', time.monotonic_ns(), flush=True)\nprint('irq 1000\\nisr 1250', flush=True)\n"
              "time.sleep(60)\n")
    instrument = create(settings(command=[sys.executable, "-c", script]), tmp_path)
    instrument.start()
    time.sleep(0.5)
    capture = instrument.stop()
    assert capture.stimulus.tolist() == [1000] and capture.response.tolist() == [1250]
    origin = int((tmp_path / "instrument.txt").read_text().split()[1])
    assert capture.facts["origin"] == "origin_ns line" and capture.align_ns == 0 and capture.start_ns == origin
    assert capture.samples > 1250  # to the stop, in ticks of 1 us: past the last edge
    instrument.close()  # idempotent after stop


def test_a_program_deaf_to_its_signal_is_killed_with_its_children(tmp_path):
    pid_file = tmp_path / "child.pid"
    script = f"trap '' INT; sleep 300 & echo $! > {pid_file}; wait; wait"
    instrument = create(settings(command=["sh", "-c", script], stop_timeout_s=0.5), tmp_path)
    instrument.start()
    while not pid_file.exists() or not pid_file.read_text().strip():
        time.sleep(0.05)
    child = int(pid_file.read_text())
    with pytest.raises(InfrastructureError, match=r"failed \(status -9\)"):
        instrument.stop()
    assert gone(child)  # its child went with the group


def test_a_failing_program_is_named_with_its_stderr_and_a_missing_one_before_it_starts(tmp_path):
    instrument = create(settings(command=["sh", "-c", "echo 'no capture device' >&2; exit 3"]), tmp_path)
    instrument.start()
    time.sleep(0.3)
    with pytest.raises(InfrastructureError, match=r"'sh' failed \(status 3\): no capture device"):
        instrument.stop()
    with pytest.raises(ValidationError, match="'no-such-capture' is no program of this host"):
        create(settings(command=["no-such-capture"]), tmp_path)


def test_close_without_stop_ends_the_program(tmp_path):
    instrument = create(settings(command=["sleep", "300"]), tmp_path)
    instrument.start()
    pid = instrument.process.pid
    instrument.close()
    assert gone(pid)


def test_a_capture_program_dies_with_a_sigkilled_xtalk(tmp_path):
    """No orphan: the instrument's owner (here a Python process standing in for xtalk) is
    SIGKILLed while the capture program runs; the program goes with it."""
    owner = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\nfrom pathlib import Path\nfrom xtalk.instruments import create\n"
        "from xtalk.spec.model import InstrumentSettings\n"
        "s = InstrumentSettings.model_validate({'kind': 'program', 'stimulus': 'irq', 'response': 'isr', "
        "'samplerate_hz': 1000, 'program': {'command': ['sleep', '300']}})\n"
        f"i = create(s, Path({str(tmp_path)!r}))\ni.start()\nprint(i.process.pid, flush=True)\ntime.sleep(300)\n")],
        stdout=subprocess.PIPE, text=True)
    pid = int(owner.stdout.readline())  # the program's supervisor (instruments/reaper.py)
    for _ in range(100):  # the supervisor has set its parent-death signal once it forked the program
        program = descendants(pid)
        if program:
            break
        time.sleep(0.01)
    owner.kill()
    owner.wait()
    assert program and gone(pid) and all(gone(p) for p in program)
