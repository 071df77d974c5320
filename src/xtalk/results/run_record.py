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
  backend_metadata:   `facts` for what a backend other than native, qemu and xen records
                      (its own keys, without editing this file), and the tools' own
                      output: xl_info, options, lab, image_packages
  GuestFacts.facts    likewise for a guest's facts from another backend
Caveat: a number that may be an int or a float is declared `int | float`, so that a
record reads back exactly as it was written.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

JSON = Any  # a JSON value whose shape this module does not own

RunStatus = Literal["running", "pass", "fail", "degraded", "error", "interrupted"]


class Part(BaseModel):
    """A record or a part of one: no key beyond those declared."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def dump(self) -> dict:
        return self.model_dump(exclude_unset=True, by_alias=True)


class Metric(Part):
    name: str
    unit: str | None = None
    kind: str | None = None
    kpi: str | None = None
    clock: Literal["host"] | None = None  # host: measured outside the guest, values and times in host ns


class Instrument(Part):
    """What an instrument's capture said (xtalk.instruments.measure): the stimuli of the
    measured window answered and lost (with their times in the run, the first 100), the
    resolution, and its length against what its time should have given."""

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
    device: str | None = None  # the instrument's own facts
    file: str | None = None
    origin: str | None = None  # a capture program's tick 0: its origin_ns line, or its start


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


class QemuVcpu(Part):
    vcpu: int
    thread_id: int
    cpu: int
    sched: str | None = None
    priority: int | None = None
    sched_refused: str | None = None


class XlVcpu(Part):
    """A row of `xl vcpu-list`."""

    name: str
    domid: int
    vcpu: int
    cpu: str
    state: str
    time_s: float
    hard_affinity: str
    soft_affinity: str


class GuestFacts(Part):
    """What the backend that started a guest says about it (GuestHandle.facts): native,
    qemu, xen and xen's dom0 host stressors; `facts` for another backend's own."""

    argv: list[str] | None = None
    pid: int | None = None
    affinity: list[int] | None = None
    sched: str | None = None
    priority: int | None = None
    sched_refused: str | None = None
    vcpus: list[QemuVcpu | XlVcpu] | None = None
    emulator_threads: list[int] | None = None
    accel: str | None = None
    machine: str | None = None
    memory_mib: int | None = None
    domain: str | None = None
    domid: int | None = None
    start_s: float | None = None
    running_host_ns: int | None = None
    pool: str | None = None
    scheduler: str | None = None
    sched_params: str | None = None
    config: str | None = None
    console_failures: list[str] | None = None
    where: str | None = None
    dom0_vcpus: list[int] | None = None
    pcpus: list[int] | None = None
    pgid: int | None = None
    log: str | None = None
    stress_ng_version: str | None = None
    cmd: str | None = None
    stop_error: str | None = None
    facts: dict[str, JSON] | None = None


class Executor(Part):
    """Where a Xen backend's commands run (remote/executors.py describe())."""

    kind: str
    label: str | None = None
    host: str | None = None
    port: int | None = None
    user: str | None = None
    host_key_alias: str | None = None


class PoolParams(Part):
    pool: str
    scheduler: str
    pool_params: str | None = None


class XenSched(Part):
    pool_params: PoolParams | None = None


class MovedCpu(Part):
    cpu: int
    from_pool: str = Field(alias="from")


class ImageKernel(Part):
    package: str
    version: str
    sha256: str


class ForeignImage(Part):
    sha256: str
    dom0_path: str


class Swept(Part):
    domains: list[str] = []
    cpupools: list[str] = []


class BackendMetadata(Part):
    """Backend.metadata(): the versions and settings of the hypervisor a run ran on.
    Declared: the keys of native, qemu, xen and xen's dom0 host backend; `facts`: a
    new backend's own keys."""

    backend: str
    # native (and xen dom0's program)
    binary: str | None = None
    binary_sha256: str | None = None
    rt_binary: str | None = None
    rt_binary_sha256: str | None = None
    steal_binary: str | None = None
    steal_binary_sha256: str | None = None
    # qemu
    arch: str | None = None
    machine: str | None = None
    accel: str | None = None
    accel_reason: str | None = None
    memory_mib: int | str | None = None
    qemu_version: str | None = None
    image_kind: str | None = None
    image: str | None = None
    image_sha256: str | None = None
    host_tsc_hz: int | None = None  # native too (x86_64: the frequency its probes were given)
    ring_gpa: str | None = None
    foreign_accel: str | None = None
    foreign_accel_reason: str | None = None
    foreign_machine: str | None = None
    # the Linux-RT image (images/linux_rt.py metadata())
    image_hash: str | None = None
    initrd: str | None = None
    image_cached: bool | None = None
    image_kernel: ImageKernel | None = None
    image_packages: dict[str, str] | None = None
    # xen
    executor: Executor | None = None
    lab: dict[str, JSON] | None = None
    swept_at_start: Swept | list[str] | None = None
    xen_version: str | None = None
    xen_scheduler: str | None = None
    schedulers_available: list[str] | None = None
    schedulers_source: str | None = None
    xl_info: dict[str, str] | None = None
    nr_cpus: int | None = None
    tsc_hz_from_dmesg: int | None = None
    options: dict[str, JSON] | None = None
    dom0_path: str | None = None
    dom0_ramdisk: str | None = None
    foreign_images: dict[str, ForeignImage] | None = None
    domains: dict[str, GuestFacts] | None = None
    vcpu_list: list[XlVcpu] | None = None
    sched: XenSched | None = None
    pool: str | None = None
    moved_cpus: list[MovedCpu] | None = None
    unpaused_host_ns: dict[str, list[int]] | None = None
    transport_failures: list[str] | None = None
    leftovers_destroyed: list[str] | None = None
    dmesg_tail: list[str] | None = None
    cpupools: str | None = None
    ssh_retries: list[str] | None = None
    cleanup_error: str | None = None
    # xen's dom0 host stressors (backends/xen/dom0.py)
    where: str | None = None
    program: str | None = None
    program_sha256: str | None = None
    dom0_program: str | None = None
    stress_ng_version: str | None = None
    dom0_vcpus: dict[str, int] | None = None
    dom0_vcpu_list: list[XlVcpu] | None = None
    dom0_vcpu_changes: list[str] | None = None
    dom0_vcpu_list_after: list[XlVcpu] | None = None
    leftovers_killed: list[str] | None = None
    # another backend's own
    facts: dict[str, JSON] | None = None


class NoiseCpu(Part):
    busy_s: float | None = None
    ours_s: float | None = None
    foreign_s: float | None = None
    foreign_pct: int | float


class Noise(Part):
    """Other processes' CPU time on the run's CPUs (host/noise.py), or why not measured."""

    wall_s: float | None = None
    cpus: dict[str, NoiseCpu] | None = None
    noisy_cpus: list[str] | None = None
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
    source: Literal["measurer", "host"]


class Size(Part):
    """A size parameter as the spec gave it (or its default) and in bytes (None: unknown)."""

    text: str
    bytes: int | None = None


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
    # what the guests said and were (running/runner.py)
    guest_begin: dict[str, str] | None = None
    guest_end: dict[str, str] | None = None
    guest_meta: dict[str, JSON] = {}
    guest_errors: list[dict[str, str]] = []
    histograms: dict[str, JSON] = {}
    guests: dict[str, GuestFacts] = {}
    backend_metadata: BackendMetadata | None = None
    host_backend_metadata: BackendMetadata | None = None
    noise: Noise | None = None
    stressors_watch: dict[str, StressorWatch] = {}
    pressure: dict[str, Pressure] = {}  # stressor name -> what it achieved
    instrument: Instrument | None = None  # an [instrument]'s capture (xtalk.instruments)
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
