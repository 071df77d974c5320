"""`xtalk spec check` knows before anything starts what would make every run fail: each
mistake below exits 2 naming the field, its line and, for a name, what was meant; the
same problems stop `xtalk run` (and --dry-run) before it creates anything; the example
specs all pass."""
from __future__ import annotations

import os

import pytest

from tests.framework.cli import write_spec, xtalk
from tests.framework.repo import ROOT

SPEC = """name = "t"
cpus = [0, 1]
[run]
duration_s = 5
pilot = true  # one run per configuration: what is checked here is not its design
[measurer]
bench = "qsort"
params = { size_kib = 64 }
[[stressors]]
name = "thrash"
bench = "cache_thrash"
params = { size = "4m" }
[[timeline]]
at_s = 1
action = "pause"
target = "thrash"
[[deadlines]]
metric = "qsort"
ns = 10_000_000
"""
INSTRUMENT = """[instrument]
kind = "sigrok"
stimulus = "D0"
response = "D1"
samplerate_hz = 100000
[instrument.sigrok]
driver = "demo"
[[deadlines]]"""
UNAVAILABLE = next(cpu for cpu in range(57, 4096) if cpu not in os.sched_getaffinity(0))

# (id, text replaced, replacement, field, text of its line, words of the message)
MISTAKES = [
    ("stressor bench", 'bench = "cache_thrash"', 'bench = "cache_thrsh"', "stressors[0].bench",
     'bench = "cache_thrsh"', ["unknown bench 'cache_thrsh'", "did you mean cache_thrash?"]),
    ("stressor param", 'size = "4m"', 'sise = "4m"', "stressors[0].params.sise", "sise",
     ["cache_thrash has no parameter 'sise'", "did you mean size?"]),
    ("measurer bench", 'bench = "qsort"', 'bench = "qsrot"', "measurer.bench", 'bench = "qsrot"',
     ["unknown bench 'qsrot'", "did you mean qsort?"]),
    ("bench written out", 'bench = "qsort"', 'bench = "mem_bandwidth"', "measurer.bench", 'bench = "mem_bandwidth"',
     ["unknown bench 'mem_bandwidth'", "did you mean membw?"]),
    ("placement", "[[deadlines]]", '[matrix]\nplacement = ["othercore"]\n[[deadlines]]', "matrix", "[matrix]",
     ['placement: "othercore" is not one of solo, same-core, other-core', "did you mean other-core?"]),
    ("measurer param", "size_kib = 64", "size_kb = 64", "measurer.params.size_kb", "size_kb",
     ["qsort has no parameter 'size_kb'", "did you mean size_kib?"]),
    ("vcpus of a one-vCPU bench", "size_kib = 64 }", "size_kib = 64 }\nvcpus = 2", "measurer.vcpus", "vcpus = 2",
     ["bench qsort runs on one vCPU", "2 vCPUs need a bench that runs on each", "lock"]),
    ("a vcpu's cpu", "size_kib = 64 }", f"size_kib = 64 }}\nvcpus = 2\ncpus = [0, {UNAVAILABLE}]",
     "measurer.cpus[1]", "cpus = [0", [f"CPU {UNAVAILABLE} is not available"]),
    ("a cpu per vcpu", "size_kib = 64 }", "size_kib = 64 }\nvcpus = 2\ncpus = [0]", "measurer", "[measurer]",
     ["cpus gives 1 CPU(s) for 2 vCPU(s): give one per vCPU"]),
    ("param type", "size_kib = 64", 'size_kib = "lots"', "measurer.params.size_kib", "size_kib",
     ["expected an unsigned integer in [1,4194304]", 'not "lots"']),
    ("param range", "size_kib = 64", "size_kib = 0", "measurer.params.size_kib", "size_kib",
     ["expected an unsigned integer in [1,4194304], not 0"]),
    ("spec key", "duration_s = 5", "duration_s = 5\nrepetitons = 2", "run.repetitons", "repetitons",
     ["unknown key", "did you mean repetitions?"]),
    ("cpus", "cpus = [0, 1]", f"cpus = [0, {UNAVAILABLE}]", "cpus[1]", "cpus =",
     [f"CPU {UNAVAILABLE} is not available", "available: "]),
    ("timeline", "at_s = 1", "at_s = 5", "timeline[0].at_s", "at_s = 5",
     ["not before the end of the run (run.duration_s = 5 s)", "never happens"]),
    ("deadline metric", 'metric = "qsort"', 'metric = "qsrt"', "deadlines[0].metric", 'metric = "qsrt"',
     ["no measurer of this campaign records 'qsrt'", "did you mean qsort?"]),
    ("inf", "duration_s = 5", "duration_s = inf", "run.duration_s", "duration_s = inf", ["finite"]),
    ("huge", "duration_s = 5", "duration_s = 1e300", "run.duration_s", "duration_s = 1e300",
     ["less than or equal to 10000000"]),
    ("string number", "duration_s = 5", 'duration_s = "5"', "run.duration_s", "duration_s =",
     ['valid number, not "5"']),
    ("bool number", "at_s = 1", "at_s = true", "timeline[0].at_s", "at_s = true", ["valid number, not true"]),
    ("instrument kind", "[[deadlines]]", INSTRUMENT.replace('"sigrok"', '"sigrk"', 1), "instrument.kind",
     'kind = "sigrk"', ["unknown instrument 'sigrk'", "did you mean sigrok?"]),
    ("instrument key", "[[deadlines]]", INSTRUMENT.replace("samplerate_hz", "samplerate_hz = 1\nsampelrate_hz"),
     "instrument.sampelrate_hz", "sampelrate_hz", ["unknown key (did you mean samplerate_hz?)"]),
    ("instrument option", "[[deadlines]]", INSTRUMENT.replace('driver = "demo"', 'driver = "demo"\nplase = "a"'),
     "instrument.sigrok.plase", "plase", ["unknown option for the sigrok instrument"]),
    ("instrument device", "[[deadlines]]", INSTRUMENT.replace('driver = "demo"', 'channel_group = "Logic"'),
     "instrument.sigrok", "[instrument.sigrok]", ["give exactly one of driver (a device on this host) or place"]),
    ("instrument edge", "[[deadlines]]", INSTRUMENT.replace('stimulus = "D0"', 'stimulus = "D0"\nstimulus_edge = "up"'),
     "instrument.stimulus_edge", "stimulus_edge", ['"up" is not one of rising, falling, both']),
    ("instrument stimulus twice", "[[deadlines]]", INSTRUMENT.replace('stimulus = "D0"', 'stimulus = "D0"\nperiod_ns = 1000000'),
     "instrument", "[instrument]", ["give exactly one of stimulus (a channel) or period_ns"]),
]


@pytest.mark.parametrize("old,new,field,line_text,words", [m[1:] for m in MISTAKES], ids=[m[0] for m in MISTAKES])
def test_a_mistake_fails_spec_check_with_field_line_and_suggestion(tmp_path, old, new, field, line_text, words):
    assert old in SPEC
    text = SPEC.replace(old, new, 1)
    path = write_spec(tmp_path, text)
    res = xtalk("spec", "check", path)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "Traceback" not in res.stderr
    (problem,) = [line for line in res.stderr.splitlines() if line.strip().startswith(f"- {field} (line ")]
    number = int(problem.split("(line ", 1)[1].split(")", 1)[0])
    assert line_text in text.splitlines()[number - 1], (problem, text)
    for word in words:
        assert word in problem, problem


def test_every_mistake_at_once_and_run_starts_nothing(tmp_path):
    text = SPEC
    chosen = [m for m in MISTAKES if m[0] in ("stressor param", "measurer param", "spec key", "cpus", "timeline",
                                              "deadline metric")]
    for _, old, new, *_ in chosen:
        text = text.replace(old, new, 1)
    path = write_spec(tmp_path, text)
    for command in (("spec", "check", path), ("run", path, "--out", tmp_path / "out"),
                    ("run", "--dry-run", path)):
        res = xtalk(*command)
        assert res.returncode == 2 and f"{len(chosen)} problem(s)" in res.stderr, res.stderr
        assert all(f"- {m[3]} (line " in res.stderr for m in chosen), res.stderr
    assert not (tmp_path / "out").exists()


def test_matrix_values_are_checked_as_the_configurations_they_make(tmp_path):
    text = SPEC + '[matrix]\n"measurer.params.size_kib" = [64, -1]\n"measurer.bench" = ["qsort", "cyclictest"]\n' \
        '"stressors.thrash.params.size" = ["1m", "big"]\n'
    res = xtalk("spec", "check", write_spec(tmp_path, text))
    assert res.returncode == 2, res.stderr
    err = res.stderr
    assert "matrix.measurer.params.size_kib (line 21): value -1: measurer.params.size_kib: expected" in err
    # native runs the POSIX suite too: cyclictest runs there, but not with qsort's parameters
    assert "matrix.measurer.bench (line 22): value \"cyclictest\": measurer.params.size_kib: cyclictest has no " \
        "parameter 'size_kib'" in err
    assert 'matrix.stressors.thrash.params.size (line 23): value "big": stressors[0].params.size: ' \
        "expected a size" in err

def test_benches_follow_the_image_of_the_backend(tmp_path):
    probe = SPEC.replace('[run]', '[backend]\nkind = "qemu"\n[run]').replace('"qsort"', '"cyclictest"', 1)
    res = xtalk("spec", "check", write_spec(tmp_path, probe.replace("params = { size_kib = 64 }\n", "")))
    assert res.returncode == 2 and "measurer.bench (line 9): bench 'cyclictest' does not run here: it runs on " \
        'the native backend, on qemu and xen guests (backend image = "linux-rt")' in res.stderr, res.stderr
    steal = SPEC.replace('[run]', '[backend]\nkind = "qemu"\n[run]').replace('"cache_thrash"', '"steal"')
    res = xtalk("spec", "check", write_spec(tmp_path, steal.replace('params = { size = "4m" }', "host = true")))
    assert res.returncode == 0, res.stderr  # a host stressor runs natively, next to the guests
    res = xtalk("spec", "check", write_spec(tmp_path, steal.replace('params = { size = "4m" }\n', "")))
    assert "stressors[0].bench (line 13): bench 'steal' does not run here" in res.stderr, res.stderr


FOREIGN = """name = "zephyr"
[backend]
kind = "qemu"
machine = "pc"
[run]
duration_s = 5
pilot = true
[measurer]
bench = "latency_measure"
image = "zephyr.elf"
output = "zephyr-latency-measure"
[[stressors]]
name = "thrash"
bench = "cache_thrash"
[[deadlines]]
metric = "thread.yield.preemptive.ctx.k_to_k"
ns = 1000
"""
REGEX = 'output = "regex"\n[measurer.parser]\nsample = \'lat=(?P<value>\\d+)\'\nmetrics = ["lat"]'
FOREIGN_MISTAKES = [
    ("output", 'output = "zephyr-latency-measure"', 'output = "zephyr-latency-measur"', "measurer.output",
     "output =", ["unknown output parser 'zephyr-latency-measur'", "did you mean zephyr-latency-measure?"]),
    ("bench", 'bench = "latency_measure"', 'bench = "latency_measur"', "measurer.bench", "bench =",
     ["output 'zephyr-latency-measure' reports no bench 'latency_measur'", "did you mean latency_measure?"]),
    ("metric", 'metric = "thread.yield.preemptive.ctx.k_to_k"', 'metric = "thread.yield.preemptive.ctx.k2k"',
     "deadlines[0].metric", "metric =", ["reports no metric 'thread.yield.preemptive.ctx.k2k'",
                                         "did you mean thread.yield.preemptive.ctx.k_to_k?"]),
    ("regex metric", 'output = "zephyr-latency-measure"', REGEX, "deadlines[0].metric", "metric =",
     ["output 'regex' reports no metric 'thread.yield.preemptive.ctx.k_to_k'"]),
    ("regex pattern", 'output = "zephyr-latency-measure"', REGEX.replace("(?P<value>", "(?P<valu>"),
     "measurer.parser.sample", "sample =", ["value"]),
    ("image missing", 'image = "zephyr.elf"', 'image = "zephyr2.elf"', "measurer.image", "image =",
     ["zephyr2.elf: no such file"]),
    ("image kind", 'image = "zephyr.elf"', 'image = "spec.toml"', "measurer.image", "image =",
     ["spec.toml is neither an ELF file, an arm64 Image (ARMd at 0x38) nor an x86 bzImage"]),
    ("image arch", 'machine = "pc"', 'arch = "arm64"', "measurer.image", "image =",
     ["zephyr.elf is an ELF file for x86_64, but the backend's guests are arm64 (backend.arch)"]),
    ("image params", 'bench = "latency_measure"', 'bench = "latency_measure"\nparams = { size_kib = 1 }',
     "measurer.params", "params =", ["a guest image of your own takes no params"]),
    ("initrd", 'image = "zephyr.elf"', 'image = "zephyr.elf"\ninitrd = "initramfs.cpio"', "measurer.initrd",
     "initrd =", ["initramfs.cpio: no such file"]),
    ("append without image", 'bench = "cache_thrash"', 'bench = "cache_thrash"\nappend = "quiet"',
     "stressors[0].append", "append =", ["only for a guest image of your own: give `image` too"]),
    ("native", 'kind = "qemu"\nmachine = "pc"', 'kind = "native"', "measurer.image", "image =",
     ["the native backend runs xtalk's programs as host processes and boots no guest image"]),
]


@pytest.mark.parametrize("old,new,field,line_text,words", [m[1:] for m in FOREIGN_MISTAKES],
                         ids=[m[0] for m in FOREIGN_MISTAKES])
def test_a_foreign_guest_is_held_to_its_parser(tmp_path, old, new, field, line_text, words):
    (tmp_path / "zephyr.elf").write_bytes((ROOT / "build" / "x86_64" / "xtalk-probe.elf").read_bytes())
    assert xtalk("spec", "check", write_spec(tmp_path, FOREIGN)).returncode == 0
    text = FOREIGN.replace(old, new, 1)
    res = xtalk("spec", "check", write_spec(tmp_path, text))
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stdout + res.stderr
    (problem,) = [line for line in res.stderr.splitlines() if line.strip().startswith(f"- {field} (line ")]
    number = int(problem.split("(line ", 1)[1].split(")", 1)[0])
    assert line_text in text.splitlines()[number - 1], (problem, text)
    for word in words:
        assert word in problem, problem


def test_the_native_backend_refuses_an_image_before_anything_runs(tmp_path):
    (tmp_path / "zephyr.elf").write_bytes((ROOT / "build" / "x86_64" / "xtalk-probe.elf").read_bytes())
    text = FOREIGN.replace('kind = "qemu"\nmachine = "pc"', 'kind = "native"')
    path = write_spec(tmp_path, text)
    for command in (("spec", "check", path), ("run", path, "--out", tmp_path / "out")):
        res = xtalk(*command)
        assert res.returncode == 2, res.stderr
        assert "- measurer.image (line 9): the native backend runs xtalk's programs as host processes and " \
               "boots no guest image: use backend kind qemu or xen" in res.stderr, res.stderr
    assert not (tmp_path / "out").exists()


def test_images_are_relative_to_the_spec_and_aarch64_is_arm64(tmp_path):
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "Image").write_bytes((ROOT / "build" / "arm64" / "xtalk-probe.img").read_bytes())
    text = FOREIGN.replace('machine = "pc"', 'arch = "aarch64"').replace('"zephyr.elf"', '"Image"')
    res = xtalk("spec", "check", write_spec(tmp_path / "specs", text))
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize("spec", sorted((ROOT / "experiments").glob("*.toml")), ids=lambda p: p.name)
def test_example_specs_pass(spec):
    res = xtalk("spec", "check", spec)
    assert res.returncode == 0 and ": ok — campaign" in res.stdout, res.stdout + res.stderr


def test_backends_and_benches_have_tables_of_their_own(tmp_path):
    text = SPEC.replace("[run]", '[backend.qemu]\nmachine = "pc"\n[run]').replace(
        "params = { size_kib = 64 }", '[measurer.params.qsort]\nsize_kib = 64\n[measurer.params.timer_latency]\n'
        'sustain = false') + '[matrix]\n"backend.kind" = ["native", "qemu"]\n"measurer.bench" = ["qsort", ' \
        '"timer_latency", "cyclictest"]\n'
    dim, table = (next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith(key))
                  for key in ('"measurer.bench"', "[measurer.params.timer_latency]"))
    res = xtalk("spec", "check", write_spec(tmp_path, text))
    (problem,) = [p for p in res.stderr.splitlines() if p.startswith("  - ")]
    assert res.returncode == 2 and problem.startswith(
        f"  - matrix.measurer.bench (line {dim}): value \"cyclictest\" with backend.kind = "
        "\"qemu\": measurer.bench: bench 'cyclictest' does not run here"), res.stderr
    text = text.replace(', "cyclictest"', "")
    res = xtalk("spec", "check", write_spec(tmp_path, text.replace("params.timer_latency]", "params.timer_latncy]")))
    assert res.returncode == 2 and f"- measurer.params.timer_latncy (line {table}):" \
        " parameters of bench 'timer_latncy', which measurer does not run (it runs qsort, timer_latency) (did you " \
        "mean timer_latency?)" in res.stderr, res.stderr
    res = xtalk("spec", "check", write_spec(tmp_path, text))
    assert res.returncode == 0 and "backends native, qemu, 12 configuration(s)" in res.stdout, res.stderr


def test_a_time_limit_on_a_count_is_refused(tmp_path):
    """timer_missed counts lost interrupts: a deadline or a gate limit in ns or cycles on it
    would be read as a time."""
    text = SPEC.replace('bench = "qsort"\nparams = { size_kib = 64 }', 'bench = "timer_latency"') \
        .replace('metric = "qsort"', 'metric = "timer_missed"') \
        + '[[gates]]\nmetric = "timer_missed"\nstat = "max"\nmax_cycles = 100\n'
    res = xtalk("spec", "check", write_spec(tmp_path, text))
    assert res.returncode == 2, res.stdout + res.stderr
    assert "- deadlines[0].ns (line 18): 'timer_missed' is recorded in count, not a time: a limit in ns does not " \
        "apply to it" in res.stderr, res.stderr
    assert "- gates[0].max_cycles (line 22): 'timer_missed' is recorded in count" in res.stderr, res.stderr
    fine = text.replace("max_cycles = 100", "max_increase_pct = 10").replace('metric = "timer_missed"\nns',
                                                                              'metric = "timer_latency"\nns')
    assert xtalk("spec", "check", write_spec(tmp_path, fine)).returncode == 0
