"""What a run's meta.json says of the Xen it ran on (XenMetadata: backend.py's metadata())
and of its dom0 host stressors (Dom0Metadata: dom0.py's), as the backends declare them
(results/run_record.py validates a record against them). The tools' own output (xl_info,
the options, the lab's state) is kept as they gave it.
"""
from __future__ import annotations

from pydantic import Field

from ...images.linux_rt import LinuxRtImageFacts
from ...results.records import BoardDecision
from ...results.run_record import JSON, BackendMetadata, GuestFacts, Part


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


class XenGuestFacts(GuestFacts):
    """A domain: its name and id, when it ran, its vCPUs, pool, scheduler and config, and
    what its console could not be read for (backend.py)."""

    domain: str | None = None
    domid: int | None = None
    start_s: float | None = None
    running_host_ns: int | None = None
    affinity: list[int] | None = None
    vcpus: list[XlVcpu] | None = None  # xl vcpu-list after pinning, the domain still paused
    vcpus_at_stop: list[XlVcpu] | None = None  # several vCPUs: xl vcpu-list before the destroy
    pool: str | None = None
    scheduler: str | None = None
    sched_params: str | None = None
    config: str | None = None
    console_failures: list[str] | None = None


class Dom0GuestFacts(GuestFacts):
    """A host stressor in dom0: where, its vCPUs and pCPUs, its command line, process group
    and log, stress-ng's version, its command as it said it, why it would not stop (dom0.py)."""

    where: str | None = None
    dom0_vcpus: list[int] | None = None
    pcpus: list[int] | None = None
    argv: list[str] | None = None
    pgid: int | None = None
    log: str | None = None
    stress_ng_version: str | None = None
    cmd: str | None = None
    stop_error: str | None = None


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


class ForeignImage(Part):
    sha256: str
    dom0_path: str


class Swept(Part):
    domains: list[str] = []
    cpupools: list[str] = []


class XenMetadata(BackendMetadata, LinuxRtImageFacts):
    arch: str | None = None
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
    # the domains' image (images.py DomainImage.info)
    image: str | None = None
    image_kind: str | None = None
    image_sha256: str | None = None
    dom0_path: str | None = None
    dom0_ramdisk: str | None = None
    foreign_images: dict[str, ForeignImage] | None = None
    # the run (backend.py run_meta)
    domains: dict[str, XenGuestFacts] | None = None
    vcpu_list: list[XlVcpu] | None = None
    sched: XenSched | None = None
    pool: str | None = None
    moved_cpus: list[MovedCpu] | None = None
    unpaused_host_ns: dict[str, list[int]] | None = None
    transport_failures: list[str] | None = None
    target: list[BoardDecision] | None = None  # what target.py decided before the run
    leftovers_destroyed: list[str] | None = None
    dmesg_tail: list[str] | None = None
    cpupools: str | None = None
    ssh_retries: list[str] | None = None
    cleanup_error: str | None = None


class Dom0Metadata(BackendMetadata):
    where: str | None = None
    executor: Executor | None = None
    program: str | None = None
    program_sha256: str | None = None
    dom0_program: str | None = None
    stress_ng_version: str | None = None
    swept_at_start: Swept | list[str] | None = None
    dom0_vcpus: dict[str, int] | None = None
    dom0_vcpu_list: list[XlVcpu] | None = None
    dom0_vcpu_changes: list[str] | None = None
    dom0_vcpu_list_after: list[XlVcpu] | None = None
    leftovers_killed: list[str] | None = None
    cleanup_error: str | None = None
