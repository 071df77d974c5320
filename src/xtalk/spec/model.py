"""Campaign spec model: frozen, validated pydantic models for the TOML a user writes.

Every model forbids unknown keys so a typo is an error, never silently ignored, and is
strict: a number is a TOML number (not "3", not true), and finite (no inf or nan).
Cross-field rules (timeline targets, matrix paths, CPU counts) live in validators so
that one validation pass reports every problem at once.
"""
from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..plugins import backend_class
from .suggest import one_of

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
NAME_MAX_LENGTH = 64
Name = Annotated[str, Field(pattern=NAME_PATTERN, max_length=NAME_MAX_LENGTH)]
ParamValue = int | float | str | bool

PLACEMENTS = ("solo", "same-core", "other-core")
START_ORDERS = ("measurer-first", "stressor-first")
STATS = ("min", "q1", "median", "q3", "max", "mean", "p90", "p99", "p999")
MAX_SECONDS = 1e7  # the longest time a workload takes (duration_s, guests/lib/cmdline.c): 115 days


def is_name(text: str) -> bool:
    """Whether `text` is a name the spec takes (a Name: a bench, a channel, ...)."""
    return len(text) <= NAME_MAX_LENGTH and re.fullmatch(NAME_PATTERN, text) is not None


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False, defer_build=True)


def params_for(params: dict, bench: str) -> dict[str, Any]:
    """The parameters a bench gets from a raw `params` table: its values, then the table
    named after the bench ([measurer.params.timer_latency]) over them; the other benches'
    tables are not its own."""
    own = params.get(bench)
    return {k: v for k, v in params.items() if not isinstance(v, dict)} | (own if isinstance(own, dict) else {})


class Workload(Strict):
    """A benchmark or stressor and its parameters (docs/benchmarks.md lists them)."""

    bench: Name = Field(description="benchmark or stressor name, e.g. qsort, cache_thrash")
    params: dict[Name, ParamValue | dict[Name, ParamValue]] = Field(
        default_factory=dict, description="benchmark parameters passed as key=value; a table named after a "
        "bench holds parameters only that bench gets (a \"measurer.bench\" matrix dimension)"
    )
    image: str | None = Field(
        default=None, description="a guest image of your own (kernel or ELF; relative to the spec file) "
        "booted instead of xtalk's; `bench` then names what it runs, `output` reads its console",
    )
    initrd: str | None = Field(default=None, description="initramfs for a foreign image (relative to the spec file)")
    append: str = Field(default="", description="kernel command line of a foreign image")
    output: Name = Field(
        default="xt", description="parser of the guest's console: xt (xtalk's guests), zephyr-latency-measure, "
        "zephyr-thread-metric, cyclictest, regex, ignore (docs/guests.md)",
    )
    parser: dict[Name, Any] = Field(default_factory=dict, description="options of the output parser")
    vcpus: int = Field(
        default=1, ge=1, le=16, description="vCPUs of this guest (natively: threads of its program); a probe "
        "bench marked smp runs on each, its metrics per vCPU (<metric>_vcpu<N>, docs/vcpus.md)")
    cpus: list[Annotated[int, Field(ge=0)]] | None = Field(
        default=None, description="the host CPU of each vCPU, one per vCPU, a CPU may repeat (default: "
        "the placement's, by vcpu_placement)")
    vcpu_placement: Literal["spread", "stacked"] = Field(
        default="spread", description="where the placement puts the vCPUs when cpus is not given: spread "
        "over the campaign's cpus from the guest's own CPU on, or stacked all on the guest's own CPU")

    @model_validator(mode="after")
    def one_cpu_per_vcpu(self) -> Workload:
        if self.cpus is not None and len(self.cpus) != self.vcpus:
            raise ValueError(f"cpus gives {len(self.cpus)} CPU(s) for {self.vcpus} vCPU(s): give one per vCPU")
        return self

    @property
    def bench_params(self) -> dict[str, ParamValue]:
        return params_for(self.params, self.bench)

    def vcpu_cpus(self, own: int, campaign_cpus: list[int]) -> tuple[int, ...]:
        """The host CPU of each vCPU: cpus as given, else from the guest's own CPU (the
        placement's) on, spread over the campaign's cpus or stacked on it."""
        if self.cpus is not None:
            return tuple(self.cpus)
        if self.vcpu_placement == "stacked" or own not in campaign_cpus:
            return (own,) * self.vcpus
        start = campaign_cpus.index(own)
        return tuple(campaign_cpus[(start + i) % len(campaign_cpus)] for i in range(self.vcpus))


class Measurer(Workload):
    iterations: int = Field(
        default=0, ge=0, description="measured iterations; 0 = until run.duration_s"
    )
    warmup_iterations: int = Field(default=0, ge=0, description="unrecorded iterations first")


class Stressor(Workload):
    name: Name = Field(description="name used by the timeline and in results")
    instances: int = Field(
        default=1, ge=1, le=64,
        description="copies of this stressor, each its own guest: name, name-2, name-3, ... (a matrix "
        "dimension stressors.<name>.instances sweeps the number of interferers)",
    )
    host: bool = Field(
        default=False,
        description="run it as a host process (the native backend's program, pinned by the "
        "placement) next to the backend's guests instead of as a guest; with xen: in dom0, on a dom0 vCPU "
        "pinned to the placement's pCPU",
    )

    def guest_names(self) -> list[str]:
        """The name of each instance: the stressor's own, then name-2, name-3, ..."""
        return [self.name] + [f"{self.name}-{i}" for i in range(2, self.instances + 1)]


class RunSettings(Strict):
    duration_s: float = Field(
        default=10.0, gt=0, le=MAX_SECONDS, description="length of a run; the measurer stops by then"
    )
    grace_s: float = Field(
        default=10.0, ge=0, le=MAX_SECONDS, description="extra time before a silent run is declared hung"
    )
    boot_timeout_s: float = Field(
        default=60.0, gt=0, le=MAX_SECONDS, description="time a measurer may take from start to its XT BEGIN"
    )
    repetitions: int = Field(default=1, ge=1, le=10000, description="runs per configuration, each a fresh VM or "
                             "process: the unit of evidence (spec check says how many a verdict needs)")
    pilot: bool = Field(
        default=False, description="a pilot: a design that cannot reach a verdict at the analysis's alpha (too few "
        "runs or cycles) is meant, and spec check takes it with a note instead of an error")
    warmup_runs: int = Field(default=0, ge=0, description="runs done first and marked warm-up")
    warmup_s: float = Field(
        default=0.0, ge=0, le=MAX_SECONDS, description="samples in the first warmup_s of a run are marked warm-up"
    )
    sched: Literal["other", "rr", "fifo"] = Field(
        default="other",
        description="scheduling class of every workload the backend runs as host threads: "
        "other (fair sharing with millisecond slices, like a hypervisor's scheduler on a shared "
        "core), rr (real-time, equal priority, 100 ms slices), fifo (real-time, no slicing: a "
        "same-core neighbour of equal priority waits until the other blocks)",
    )
    priority: int = Field(default=10, ge=1, le=89, description="real-time priority for rr/fifo")
    start_gap_s: float = Field(
        default=0.5, ge=0, le=MAX_SECONDS, description="pause between starting the first and the second guests"
    )
    wait_for_stressors: bool = Field(
        default=False,
        description="stressor-first: start the measurer as soon as every stressor has said it is set up "
        "(XT META ready=1: its buffers allocated), start_gap_s at most",
    )
    stressor_failure: Literal["fail", "degrade"] = Field(
        default="fail",
        description="a stressor that dies, exits, is stopped by someone else, stalls or ignores a timeline "
        "event makes the run failed (fail) or degraded (degrade: kept and reported, no verdict uses it, the "
        "campaign does not exit 3 for it)",
    )
    power_cycle: bool = Field(
        default=False, description="on a fleet (xtalk run --fleet): power-cycle the board through labgrid before "
        "each run and wait for it to answer ssh (the thesis rebooted the board between runs); no effect on one host")
    order: Literal["interleaved", "grouped"] = Field(
        default="interleaved",
        description="interleaved: repetition-major (drift spreads over configs); grouped: config-major",
    )
    cache_sizes: Literal["measured", "reported"] = Field(
        default="measured",
        description="what cache-relative sizes (l1, l2, l3, llc, shared) resolve against: measured (what `xtalk "
        "host caches` measured on this host and backend, where it did; else what the machine reports) or "
        "reported (what the machine reports: sysfs, or the guest's cache registers); docs/caches.md",
    )


class TimelineEvent(Strict):
    at_s: float = Field(ge=0, le=MAX_SECONDS, description="seconds after the measurer started")
    action: Literal["start", "stop", "pause", "resume"]
    target: Name = Field(description="a stressor name")


class Deadline(Strict):
    metric: Name
    ns: float | None = Field(default=None, gt=0)
    cycles: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def one_unit(self) -> "Deadline":
        if (self.ns is None) == (self.cycles is None):
            raise ValueError("give exactly one of ns or cycles")
        return self


class Gate(Strict):
    """A KPI gate: fails the campaign (exit 1) when a statistic passes its limit."""

    metric: Name
    stat: Literal[STATS] = "median"  # type: ignore[valid-type]
    max_increase_pct: float | None = Field(
        default=None, description="limit on the change versus the baseline configuration"
    )
    max_ns: float | None = Field(default=None, gt=0)
    max_cycles: float | None = Field(default=None, gt=0)
    baseline: str = Field(default="placement=solo", description="dimension=value of the baseline")

    @model_validator(mode="after")
    def has_limit(self) -> "Gate":
        if self.max_increase_pct is None and self.max_ns is None and self.max_cycles is None:
            raise ValueError("give max_increase_pct, max_ns or max_cycles")
        return self


class Paired(Strict):
    """The paired design: stressors switched off and on inside every run, the measurer's
    on-windows compared with the off-windows next to them (docs/analysis.md)."""

    stressors: list[Name] = Field(
        default_factory=list, description="stressors switched on and off (default: all)"
    )
    off_s: float = Field(default=1.0, gt=0, le=3600, description="length of an off-window; the run starts off")
    on_s: float = Field(default=1.0, gt=0, le=3600, description="length of an on-window")
    settle_s: float | None = Field(
        default=None, ge=0, description="seconds dropped at the start of every window (default 10% of it)"
    )


class AnalysisSettings(Strict):
    alpha: float = Field(
        default=0.01, ge=0.001, le=0.2,
        description="significance level of the verdicts (and 1 - the noise floor's coverage)",
    )
    negligible_pct: float = Field(
        default=5.0, gt=0, le=100,
        description="a change (%) too small to matter: 'no interference' needs the 95% interval inside it",
    )
    negligible_points: float = Field(
        default=1.0, gt=0, le=100,
        description="the same for shares (stolen time, deadline misses), in percentage points",
    )
    drift_pct: float = Field(
        default=25.0, gt=0, le=1000,
        description="drift (%) between campaigns of one spec assumed by `xtalk compare` where it was never "
        "measured (no side with 2 replicate campaigns): a difference is called only beyond it",
    )
    drift_points: float = Field(
        default=3.0, gt=0, le=100, description="the same for shares (stolen time, deadline misses), in points",
    )
    baseline: str | None = Field(
        default=None, description="dimension=value of the reference configuration (default: the first gate's "
        "baseline, else placement=solo)",
    )


# The backends are xtalk.plugins's (backend_class(name) is one): in [backend], a table
# named after one ([backend.qemu]) holds that backend's own options; asking by name loads
# that backend's module only.


def resolve_backend(table: dict) -> tuple[str, dict[str, Any]]:
    """(kind, options) of a raw [backend] table: its keys besides `kind` and the per-backend
    tables, then the table named after the kind over them ([backend.qemu] when kind is
    qemu); the other backends' tables are not this configuration's."""
    kind = str(table.get("kind", "native"))
    shared = {k: v for k, v in table.items() if k != "kind" and backend_class(k) is None}
    own = table.get(kind)
    return kind, shared | (own if isinstance(own, dict) else {})


class BackendSettings(BaseModel):
    """`kind` picks the backend; every other key is an option that backend validates, a
    table named after a backend ([backend.qemu]) options only that backend gets."""

    model_config = ConfigDict(extra="allow", frozen=True, strict=True, defer_build=True)
    kind: Name = Field(default="native", description="the backend, by its kind (docs/backends.md); an unknown "
                       "kind is refused with the list of the known ones")

    @property
    def options(self) -> dict[str, Any]:
        return resolve_backend(dict(self.model_extra or {}, kind=self.kind))[1]


EDGES = ("rising", "falling", "both")


class InstrumentSettings(BaseModel):
    """An instrument that measures each run from outside its guests (docs/instruments.md):
    every delay from a stimulus edge to the response edge after it is a sample of `metric`
    (kind latency, ns). `kind` picks the instrument (xtalk.instruments); a table named after
    it ([instrument.sigrok]) holds that kind's own options, which it validates."""

    model_config = ConfigDict(extra="allow", frozen=True, strict=True, allow_inf_nan=False, defer_build=True)
    kind: Name = Field(description="the instrument, by its kind (docs/instruments.md)")
    metric: Name = Field(default="irq_latency", description="the metric its delays are stored as")
    stimulus: Name | None = Field(default=None, description="the channel of the stimulus (what raises the "
                                  "interrupt), e.g. D0; none with period_ns")
    response: Name = Field(description="the channel of the response (the pin the guest's handler drives), e.g. D1")
    stimulus_edge: Literal[EDGES] = Field(default="rising", description="the stimulus edge: rising, falling, both")  # type: ignore[valid-type]
    response_edge: Literal[EDGES] = Field(default="rising", description="the response edge: rising, falling, both "
                                          "(both for a handler that toggles its pin)")  # type: ignore[valid-type]
    samplerate_hz: int = Field(gt=0, le=10**11, description="the capture's sample rate: its resolution is one "
                               "sample period, 1e9 / samplerate_hz ns")
    period_ns: int | None = Field(default=None, gt=0, description="no stimulus channel: the stimulus is a strict "
                                  "period (the timer bench's deadlines, where a board has no GPIO loop), each "
                                  "response edge timed against it")

    @model_validator(mode="after")
    def one_stimulus(self) -> "InstrumentSettings":
        if (self.stimulus is None) == (self.period_ns is None):
            raise ValueError("give exactly one of stimulus (a channel) or period_ns (a strictly periodic stimulus "
                             "with no channel: the timer bench's deadlines)")
        if self.period_ns is not None and self.period_ns * self.samplerate_hz < 2 * 10**9:
            raise ValueError(f"period_ns {self.period_ns} is shorter than two samples at {self.samplerate_hz} Hz: "
                             "raise samplerate_hz")
        return self

    @property
    def stimulus_text(self) -> str:
        """What the stimulus is, as show and the report say it."""
        return f"{self.stimulus} {self.stimulus_edge}" if self.stimulus else f"every {self.period_ns:,} ns (no channel)"

    @property
    def options(self) -> dict[str, Any]:
        """The kind's own options: the table named after it."""
        own = (self.model_extra or {}).get(self.kind)
        return own if isinstance(own, dict) else {}


class Campaign(Strict):
    name: Name
    description: str = ""
    backend: BackendSettings = Field(default_factory=BackendSettings)
    cpus: list[Annotated[int, Field(ge=0)]] = Field(
        default_factory=lambda: [0, 1],
        description="host CPUs xtalk may use; the first is the measurer's",
        min_length=1,
    )
    housekeeping_cpus: list[Annotated[int, Field(ge=0)]] = Field(
        default_factory=list, description="CPUs for emulator/IO threads (empty = any)"
    )
    run: RunSettings = Field(default_factory=RunSettings)
    measurer: Measurer
    stressors: list[Stressor] = Field(default_factory=list)
    matrix: dict[str, list[ParamValue]] = Field(
        default_factory=dict,
        description="dimension -> values: placement, start_order, or a dotted spec path "
        "such as measurer.params.size_kib or backend.machine",
    )
    timeline: list[TimelineEvent] = Field(default_factory=list)
    paired: Paired | None = None
    analysis: AnalysisSettings = Field(default_factory=AnalysisSettings)
    deadlines: list[Deadline] = Field(default_factory=list)
    gates: list[Gate] = Field(default_factory=list)
    instrument: InstrumentSettings | None = Field(
        default=None, description="an instrument measuring each run from outside (a logic analyser): "
        "stimulus-to-response delays as samples")

    @field_validator("cpus", "housekeeping_cpus")
    @classmethod
    def unique_cpus(cls, cpus: list[int]) -> list[int]:
        if len(set(cpus)) != len(cpus):
            raise ValueError("a CPU is listed twice")
        return cpus

    @field_validator("stressors")
    @classmethod
    def unique_stressor_names(cls, stressors: list[Stressor]) -> list[Stressor]:
        names = [n for s in stressors for n in s.guest_names()]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"stressor names must be unique, with their instances' (name-2, ...): {', '.join(dup)}")
        return stressors

    @field_validator("matrix")
    @classmethod
    def matrix_values(cls, matrix: dict[str, list[ParamValue]]) -> dict[str, list[ParamValue]]:
        allowed = {"placement": PLACEMENTS, "start_order": START_ORDERS}
        for dim, values in matrix.items():
            if not values:
                raise ValueError(f"{dim}: needs at least one value")
            if len(set(map(str, values))) != len(values):
                raise ValueError(f"{dim}: a value is listed twice")
            if dim in allowed:
                bad = [one_of(v, allowed[dim]) for v in values if v not in allowed[dim]]
                if bad:
                    raise ValueError(f"{dim}: {'; '.join(bad)}")
        return matrix
