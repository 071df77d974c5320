"""A run's meta.json (RunRecord) and the parts it is made of: every key xtalk writes is
declared here, and nothing else is accepted (extra="forbid"), so a misspelt key fails
where it is saved.

Open maps of JSON values, on purpose (their keys belong to someone else):
  config              the run's point of the spec's matrix (dimension -> value)
  guest_meta          what the measurer reported on XT META (the guest's own keys)
  guest_begin/_end    the fields of its begin and end (XT BEGIN / END key=value, or a
                      foreign parser's; docs/protocol.md)
  histograms          the guest's histograms, as its parser gives them
  params, parser      a guest's bench parameters (catalogue) and parser options (parsers/)
  board_host          a fleet board's host facts (host/metadata.py, as campaign.json's host)
  backend_metadata    the tools' own output: xl_info, options, lab, image_packages

Parts a plug-in owns: a run's backend_metadata (and host_backend_metadata) holds the keys
its backend's class declares (`Metadata`, a subclass of BackendMetadata beside the
backend), found by the kind it names; each of its guests' facts those of `GuestFacts`; `instrument` holds the common keys of every capture
(InstrumentFacts) and the instrument's own (its class's `Facts`). A record of a plug-in
this xtalk does not have keeps what it wrote.
Caveat: a number that may be an int or a float is declared `int | float`, so that a
record reads back exactly as it was written.
"""
from __future__ import annotations

from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, SerializeAsAny, ValidationInfo, create_model, field_validator

from ..plugins import BACKENDS, INSTRUMENTS

JSON = Any  # a JSON value whose shape this module does not own

RunStatus = Literal["running", "pass", "fail", "degraded", "error", "interrupted"]


class Part(BaseModel):
    """A record or a part of one: no key beyond those declared."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    def dump(self) -> dict:
        return self.model_dump(exclude_unset=True, by_alias=True)


class Metric(Part):
    name: str
    unit: str | None = None
    kind: str | None = None
    kpi: str | None = None
    clock: Literal["host"] | None = None  # host: measured outside the guest, values and times in host ns


class InstrumentFacts(Part):
    """What an instrument's capture said (xtalk.instruments.measure): the stimuli of the
    measured window answered and lost (with their times in the run, the first 100), the
    resolution, and its length against what its time should have given. An instrument's own
    facts (its device, its file) are its class's `Facts`, a subclass of this one."""

    kind: str
    metric: str
    stimulus: str  # channel and edge, or the period with no channel
    response: str
    samplerate_hz: float
    resolution_ns: float
    samples: int
    captured_s: float
    wanted_samples: int
    stimuli: int
    answered: int
    lost: int
    lost_t_s: list[float] = []
    outside_window: int = 0  # stimuli before the measurer began or after the window closed
    cut_by_end: int = 0
    unexpected_responses: int = 0
    align_ns: int
    dropped: int = 0  # events the instrument said it lost


class UnknownInstrumentFacts(InstrumentFacts):
    """A capture of an instrument this xtalk does not have: what its record says."""

    model_config = ConfigDict(extra="allow", defer_build=True)


class GuestRecord(Part):
    """How a guest of the run was planned (campaign.run_meta): its bench, parameters,
    CPUs, how its console is read, and its own image where it has one."""

    name: str | None = None       # stressors only (the measurer is "measurer")
    stressor: str | None = None
    bench: str
    params: dict[str, JSON] = {}
    cpus: list[int] = []
    starts_at_boot: bool | None = None
    host: bool | None = None
    output: str | None = None
    parser: dict[str, JSON] = {}
    image: str | None = None
    image_sha256: str | None = None
    initrd: str | None = None
    initrd_sha256: str | None = None
    append: str | None = None


class TimelineStep(Part):
    """A planned timeline event of the spec."""

    at_s: float
    action: str
    target: str


class GuestFacts(Part):
    """What the backend that started a guest says of it (GuestHandle.facts): the keys its
    class's `GuestFacts` declares (a subclass of this one, beside the backend), found by the
    run's backend and whether the guest is a host stressor; `facts`: the keys of a backend
    that declares no model of its own."""

    facts: dict[str, JSON] | None = None


class UnknownGuestFacts(GuestFacts):
    """A guest of a backend this xtalk does not have: what its record says."""

    model_config = ConfigDict(extra="allow", defer_build=True)


def guest_facts_model(kind: object, host: bool = False) -> type[GuestFacts]:
    """The model of a guest's facts in a run of that backend: its class's, or, for a host
    stressor, that of the backend its host stressors run in (xen: dom0's; else native's)."""
    cls = BACKENDS.get(kind) if isinstance(kind, str) else None
    if cls is not None and host:
        cls = cls.host_backend_class or BACKENDS.get("native")
    return cls.GuestFacts if cls is not None else UnknownGuestFacts


class BackendMetadata(Part):
    """Backend.metadata(): the versions and settings of the hypervisor a run ran on. The
    keys are its backend's: the class's `Metadata`, a subclass of this one declared beside
    it; `facts`: the keys of a backend that declares no model of its own."""

    backend: str
    facts: dict[str, JSON] | None = None


class UnknownBackendMetadata(BackendMetadata):
    """The metadata of a backend this xtalk does not have: what its record says."""

    model_config = ConfigDict(extra="allow", defer_build=True)


def backend_metadata_model(kind: object) -> type[BackendMetadata]:
    """The model of the metadata a backend of that kind writes: its class's, or that of the
    backend its host stressors run in where it has one of its own (xen: dom0's)."""
    own = BACKENDS.get(kind) if isinstance(kind, str) else None  # by its name: only its module is loaded
    if own is not None and own.name == kind:
        return own.Metadata
    for cls in BACKENDS.by_name().values():

        for owner in (cls, cls.host_backend_class):
            if owner is not None and owner.name == kind:
                return owner.Metadata
    return UnknownBackendMetadata


def instrument_facts_model(kind: object) -> type[InstrumentFacts]:
    cls = INSTRUMENTS.get(kind) if isinstance(kind, str) else None
    return cls.Facts if cls is not None else UnknownInstrumentFacts


class NoiseCpu(Part):
    busy_s: float | None = None
    ours_s: float | None = None
    xtalk_s: float | None = None       # xtalk's own threads pinned there (not other work)
    steal_s: float | None = None       # of foreign_s: taken by the machine's own hypervisor
    foreign_s: float | None = None
    foreign_pct: int | float


class BusyProcess(Part):
    pid: int
    command: str
    cpu_s: float
    pct: float


class Noise(Part):
    """Other processes' CPU time on the run's CPUs (host/noise.py), or why not measured."""

    wall_s: float | None = None
    cpus: dict[str, NoiseCpu] | None = None
    noisy_cpus: list[str] | None = None
    busiest: list[BusyProcess] | None = None
    threshold_pct: float | None = None
    tick_s: float | None = None
    not_measured: str | None = None


class StressorExit(Part):
    status: int
    t_s: float | None = None
    end: dict[str, str] | None = None


class TimelineEffect(Part):
    """Whether a timeline event took effect on a stressor (running/watch.py)."""

    action: str
    planned_s: float
    took_effect: bool | None
    detail: str


class StressorWatch(Part):
    """How one stressor did over the measured window (src/xtalk/running/watch.py)."""

    exposure: float | None = None  # share of its on-time it was there (active or idle)
    cpu_share: float | None = None
    on_s: float = 0.0
    counted_s: float | None = None
    active_s: float | None = None
    idle_s: float | None = None
    starved_s: float | None = None
    stopped_s: float = 0.0
    gone_s: float | None = None
    cpu_s: float | None = None
    alive: bool = True
    exit: StressorExit | None = None
    end: dict[str, str] | None = None
    errors: list[dict[str, str]] = []
    timeline: list[TimelineEffect] = []


class Pressure(Part):
    """The pressure one stressor achieved over the measured window (src/xtalk/running/pressure.py):
    rate = work_per_pass x passes / window_s in `unit` (work_unit per second: bytes/s,
    ops/s, exits/s, interrupts/s); or, in not_reported, why it is not known."""

    rate: float | None = None
    unit: str | None = None
    passes: int | None = None
    work_per_pass: int | None = None
    work_unit: str | None = None
    window_s: float | None = None
    not_reported: str | None = None


class Caches(Part):
    """The cache sizes a run's size parameters were resolved with, in bytes (spec/sizes.py)."""

    l1: int | None = None
    l2: int | None = None
    l3: int | None = None
    llc: int | None = None
    shared: int | None = None   # the largest level the measurer's CPU shares with its neighbours'
    # measured (xtalk host caches) or reported (sysfs) as xtalk gave them to the guests; else what
    # the measurer detected and said (measurer) or, where it said nothing, this host's (host)
    source: Literal["measured", "reported", "measurer", "host"]


class Size(Part):
    """A size parameter as the spec gave it (or its default) and in bytes (None: unknown)."""

    text: str
    bytes: int | None = None
    source: str | None = None   # what resolved a cache-relative one: the run's caches' source (Caches.source)


class Platform(Part):
    """A run's host and backend as `xtalk calibrate` measured them: one preemption's cost
    (the intercept of measured gap against injected steal), the slope of that fit, when,
    and the calibration campaign's id."""

    preemption_cost_us: float
    slope: float
    calibrated_at: str
    source: str


class FleetBoard(Part):
    hostname: str | None = None
    machine: str | None = None
    cpu_model: str | None = None
    kernel: str | None = None
    online_cpus: int | None = None


class Fleet(Part):
    """Where a fleet campaign's run ran (fleet/campaign.py)."""

    mode: str
    place: str
    kind: str
    reach: str
    address: str | None = None
    board: FleetBoard | None = None


class SerialConsole(Part):
    """A fleet board's serial console over the run (fleet/console.py)."""

    log: str | None
    port: str | None = None
    protocol: str | None = None
    bytes: int | None = None
    problems: list[str] = []
    why: str | None = None


class ManifestEntry(Part):
    """A run's file as it was when the run was finalised (results/manifest.py)."""

    bytes: int
    mtime_ns: int
    sha256: str


class RunRecord(Part):
    # identity and plan (campaign.run_meta, importer)
    schema_version: int
    run_id: str
    config_id: str
    attempt: int
    index: int = 0
    config: dict[str, JSON] = {}
    repetition: int | None = None
    campaign: str | None = None
    backend: str | None = None
    placement: str | None = None
    start_order: str | None = None
    warmup: bool = False
    warmup_s: float | None = None
    duration_s: float | None = None
    measurer: GuestRecord | None = None
    stressors: list[GuestRecord] = []
    timeline: list[TimelineStep] = []
    xtalk_cpus: list[int] | None = None
    xtalk_version: str | None = None
    # outcome
    status: RunStatus
    reason: str = ""
    started_at: str | None = None
    ended_at: str | None = None
    # samples and clock (finalize.py, running/runner.py)
    sample_count: int | None = None
    lost_samples: int | None = None
    ring_lost_samples: int | None = None
    freq_hz: float | None = None
    origin_host_ns: int | None = None
    begin_counter: int | None = None
    clock_offset_ns: float | None = None
    metrics: dict[str, Metric] = {}
    files: dict[str, ManifestEntry] | None = None  # the run's files (results/manifest.py); absent before format 6
    record_sha256: str | None = None  # this record's own hash (records.sealed, checked by load_run)
    checked: str | None = None  # the stamp of the code that checked it, with its events (record_file.py)
    # what the guests said and were (running/runner.py)
    guest_begin: dict[str, str] | None = None
    guest_end: dict[str, str] | None = None
    guest_meta: dict[str, JSON] = {}
    guest_errors: list[dict[str, str]] = []
    histograms: dict[str, JSON] = {}
    guests: dict[str, SerializeAsAny[GuestFacts]] = {}  # guest name -> its backend's facts of it
    backend_metadata: SerializeAsAny[BackendMetadata] | None = None
    host_backend_metadata: SerializeAsAny[BackendMetadata] | None = None
    noise: Noise | None = None
    stressors_watch: dict[str, StressorWatch] = {}
    pressure: dict[str, Pressure] = {}  # stressor name -> what it achieved
    instrument: SerializeAsAny[InstrumentFacts] | None = None  # an [instrument]'s capture (xtalk.instruments)
    caches: Caches | None = None
    sizes: dict[str, Size] = {}  # spec path of a size parameter -> Size
    platform: Platform | None = None  # absent where the host and backend were never calibrated
    # imported runs (importer.py)
    imported_from: str | None = None
    log_sha256: str | None = None
    # fleet runs (fleet/)
    fleet: Fleet | None = None
    serial_console: SerialConsole | None = None
    board_host: dict[str, JSON] | None = None

    @field_validator("backend_metadata", "host_backend_metadata", mode="before")
    @classmethod
    def _as_its_backends(cls, value: object) -> object:
        return backend_metadata_model(value.get("backend")).model_validate(value) if isinstance(value, dict) else value

    @field_validator("guests", mode="before")
    @classmethod
    def _as_their_backends(cls, value: object, info: ValidationInfo) -> object:
        if not isinstance(value, dict):
            return value
        hosted = {s.name for s in info.data.get("stressors") or () if s.host}
        return {name: guest_facts_model(info.data.get("backend"), name in hosted).model_validate(facts)
                if isinstance(facts, dict) else facts for name, facts in value.items()}

    @field_validator("instrument", mode="before")
    @classmethod
    def _as_its_instruments(cls, value: object) -> object:
        return instrument_facts_model(value.get("kind")).model_validate(value) if isinstance(value, dict) else value


def json_schema() -> dict:
    """RunRecord's JSON Schema with the parts that plug-ins own spelled out: a backend's
    metadata and a guest's facts are one of the installed backends' models, a capture one
    of the instruments'."""
    owners = {owner for cls in BACKENDS.by_name().values() for owner in (cls, cls.host_backend_class or cls)}
    metadata = Union[tuple(sorted({o.Metadata for o in owners}, key=lambda m: m.__name__))]  # noqa: UP007 - a Union of types
    guests = Union[tuple(sorted({o.GuestFacts for o in owners}, key=lambda m: m.__name__))]  # noqa: UP007
    facts = Union[tuple(sorted({cls.Facts for cls in INSTRUMENTS.by_name().values()}, key=lambda m: m.__name__))]  # noqa: UP007
    record = create_model("RunRecord", __base__=RunRecord, backend_metadata=(metadata | None, None),
                          host_backend_metadata=(metadata | None, None), instrument=(facts | None, None),
                          guests=(dict[str, guests], {}))
    return record.model_json_schema()
