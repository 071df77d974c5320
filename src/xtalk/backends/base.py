"""The Backend interface every hypervisor (or the bare machine) implements.

A backend is a small class, registered under its kind `name` with
xtalk.plugins's `@BACKENDS.register` (which finds every module of this package):
`accepts(host)` says whether it can run here and why not;
the runner drives the lifecycle (prepare, start, pin, pause/resume, stop, cleanup) as
one function, like rtla's run_tool(). `stop` is idempotent and always called. A backend
that `launches_ahead` (qemu) has the next run's guests launched and settled, held
paused, while the previous run ends (running/ahead.py): that run's start resumes them.
Host stressors (`host = true`) run through `host_backend()`, next to this backend's guests:
the native backend (host processes), or dom0 for xen; a started guest's handle names the
backend that started it.
Before anything starts, `suites` (and `host_suites`) say which benches of the catalogue
its guests (its host stressors) run, `guest_arch` and `no_images` what it boots of the
user's own images (`image`), and `check_spec` what the backend refuses in a spec on this
host (xtalk.running.preflight asks them).
What a backend tells the rest of xtalk is on its class too: its options (`Options`, a
pydantic model: check_options and the option checks come from it), the facts it adds to
the host facts (`host_facts`: its tool's versions), the rows it adds to `xtalk host show`
(`host_rows`) and to the report's setup and host tables (`version_rows`), and how a fleet
board is reached when its hypervisor is driven from here (`reach`, and `board_values`:
what such a board sets in the spec; docs/fleet.md).
A new hypervisor is one file in this package plus its tests.
"""
from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal


from pydantic import BaseModel, ConfigDict

from ..plugins import backend_class, option_problems
from ..host.pinning import allowed_cpus
from ..results.run_record import BackendMetadata, GuestFacts
from ..spec.sizes import bench_sizes
from ..spec import catalogue
from ..spec.catalogue import IMAGE_SUITES

if TYPE_CHECKING:
    from ..spec.plan import GuestPlan, RunPlan  # the spec's models: not for a command that reads records
    from ..telemetry.ring import RingReader  # NumPy: imported by the backends that make a ring


@dataclass
class GuestHandle:
    """A started guest as the runner sees it."""

    plan: GuestPlan
    console_fd: int | None = None  # readable, non-blocking; EOF when the guest is gone
    ring: RingReader | None = None  # the measurer's samples
    passes: RingReader | None = None  # a stressor's own small ring: its header counts its passes (running/pressure.py)
    no_passes: str | None = None  # why a stressor has none, where its backend knows (None: the backend gives none)
    pids: list[int] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)  # pinning, policy, command line...
    backend_state: Any = None
    backend: Backend | None = None  # the backend that started it: every later call goes there


@dataclass(frozen=True)
class BoardAccess:
    """How a fleet board is reached over ssh (from its place's NetworkService and its kind),
    for Backend.board_values; None: ssh's own default."""

    host: str  # [user@]address
    port: int | None = None
    identity: str | None = None  # private key file
    known_hosts: str | None = None


@dataclass(frozen=True)
class Vitals:
    """One look at a started guest (Backend.vitals): the CPU time its vCPUs (threads, or
    the domain) used so far and what it is doing: running (or runnable), sleeping by its
    own choice, or stopped (SIGSTOP, `xl pause`: by whoever did it)."""

    taken_ns: int  # host CLOCK_MONOTONIC when it was read
    cpu_s: float
    state: Literal["running", "sleeping", "stopped"]
    quantum_s: float = 1e-9  # resolution of cpu_s (`xl list` prints tenths of a second)


class NoOptions(BaseModel):
    """The options of a backend that takes none."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Backend(ABC):
    name: ClassVar[str]  # its kind: [backend] kind = "<name>"
    Options: ClassVar[type[BaseModel]] = NoOptions  # its [backend] options (unknown keys forbidden)
    # The fleet reach (docs/fleet.md) under which a board's hypervisor is driven by this backend
    # from here; None: boards run it through `xtalk worker` on the board (reach = "worker").
    reach: ClassVar[str | None] = None
    # A guess of one run's start, to the measurer's first sample, in seconds: the design
    # check's wall time of a campaign not yet run (design/check.py)
    boot_s: ClassVar[float] = 5.0
    # what metadata() says: the model a run's record holds it to (results/run_record.py)
    Metadata: ClassVar[type[BackendMetadata]] = BackendMetadata
    # what it says of each guest it started (GuestHandle.facts), held to this model likewise
    GuestFacts: ClassVar[type[GuestFacts]] = GuestFacts
    # the class of host_backend() where it is one of its own (xen: its dom0 stressors);
    # None: the native backend's
    host_backend_class: ClassVar[type[Backend] | None] = None

    def __init__(self, options: dict[str, Any]):
        self.options = options
        self._host: Backend | None = None

    @classmethod
    def board_values(cls, kind_options: dict[str, Any], backend: dict[str, Any],
                     board: BoardAccess) -> dict[str, Any]:
        """For a backend with a `reach`: what a fleet board of that reach sets in the spec, as
        {dotted path: value} (structured data, never --set's text). `kind_options`: the
        fleet kind's table named after this backend's kind; `backend`: the spec's raw
        [backend] table; `board`: how the board answers ssh."""
        raise NotImplementedError(f"the {cls.name} backend has reach {cls.reach!r} but no board_values")

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> list[tuple[str, str]]:
        """Problems with the spec's backend options (against `Options`) as (key, message); [] when fine."""
        return [(".".join(map(str, loc)), message)
                for loc, message in option_problems(cls.Options, f"the {cls.name} backend", options)]

    @classmethod
    def host_facts(cls) -> dict[str, Any] | None:
        """What it adds to the host facts stored with every run (under its kind), e.g. its
        tool's versions; None: nothing."""
        return None

    @classmethod
    def host_rows(cls, facts: dict[str, Any]) -> list[tuple[str, str]]:
        """Its rows of `xtalk host show`, from what host_facts gave (label, text)."""
        return []

    @classmethod
    def version_rows(cls, facts: dict[str, Any]) -> list[tuple[str, str | None]]:
        """Its rows of the report's setup (where the campaign ran it) and host tables, from
        the stored host facts under its kind ({} in records from before): (label, value or None)."""
        return []

    @classmethod
    def suites(cls, options: dict[str, Any]) -> tuple[str, ...] | None:
        """The catalogue suites (build/catalogue.json) its guests run, by its image option:
        the probe guests' benches, or the POSIX suite of image linux-rt; None for an image
        it does not know (check_options says so)."""
        image = options.get("image", "probe")
        return IMAGE_SUITES.get(image) if isinstance(image, str) else None

    @classmethod
    def make_targets(cls, options: dict[str, Any]) -> tuple[str, ...]:
        """The make targets its guests are built by with these options, which `xtalk run`
        starts making while it imports what its campaign needs (images/artifacts.make_ahead):
        () where it builds none of its own or only running tells."""
        return ()

    # Why this backend boots no guest image of the user's (a workload's `image`); "": it does. The spec
    # check adds the backends that do (xtalk.running.preflight.booted_by).
    no_images: ClassVar[str] = ""

    @classmethod
    def guest_arch(cls, options: dict[str, Any]) -> str | None:
        """The architecture (x86_64, arm64) of the guests it boots with these options, for
        checking a foreign image before anything starts; None when only connecting tells."""
        return None

    @classmethod
    def host_suites(cls, options: dict[str, Any]) -> tuple[str, ...]:
        """The catalogue suites its host stressors run (host_backend's programs): natively."""
        return backend_class("native").suites({})

    @classmethod
    def check_spec(cls, raw: dict) -> list[tuple[tuple, str]]:
        """What the backend refuses in a raw spec before anything starts, as (location,
        message): backends whose guests run here refuse the CPUs this host lacks (where
        only connecting could tell, as for a remote dom0, nothing is said)."""
        return []

    @classmethod
    @abstractmethod
    def accepts(cls, host: dict) -> tuple[bool, str]:
        """(True, '') when this backend can run on the host described by host_facts()."""

    @abstractmethod
    def prepare(self, run: RunPlan, run_dir: Path) -> None:
        """Build or find images, create per-run resources. Called once per run; evidence
        (hypervisor logs) goes into run_dir, next to the run's other files."""

    @abstractmethod
    def start(self, guest: GuestPlan, run: RunPlan, paused: bool = False) -> GuestHandle:
        """Start a guest pinned to guest.cpus (verify the pinning took), running, or held
        paused when asked (a timeline 'start' then only resumes it: exact timing)."""

    # True when launch() and settle() start a run's guests ahead of it (running/ahead.py); such a
    # backend keeps each prepared run's resources apart (the next run's prepare comes before this
    # one's cleanup, which the runner calls once the run is stored) and its cleanup records nothing
    launches_ahead: ClassVar[bool] = False

    def launch(self, guest: GuestPlan, run: RunPlan) -> GuestHandle:
        """For launches_ahead, after prepare(run), before the run: begin starting a guest
        that will be held paused, and return without waiting for it (it sets itself up
        while the previous run ends and is stored); settle() finishes it. stop() takes it at
        either step."""
        raise NotImplementedError(f"the {self.name} backend starts guests only when a run asks")

    def settle(self, handle: GuestHandle, run: RunPlan) -> None:
        """A launched guest made ready as start(paused=True) leaves one (pinned, verified,
        held): its run's start only resumes it."""
        raise NotImplementedError(f"the {self.name} backend starts guests only when a run asks")

    @abstractmethod
    def pause(self, handle: GuestHandle) -> None: ...

    @abstractmethod
    def resume(self, handle: GuestHandle) -> None: ...

    @abstractmethod
    def poll_exit(self, handle: GuestHandle) -> int | None:
        """The guest's exit status if it has ended, else None."""

    @abstractmethod
    def stop(self, handle: GuestHandle) -> None:
        """Kill and reap everything of this guest. Idempotent; must not raise."""

    def vitals(self, handle: GuestHandle, fresh: bool = False) -> Vitals | None:
        """The guest's CPU time and state, for watching stressors (src/xtalk/running/watch.py);
        None when unknown or the guest is gone. `fresh`: a reading taken from now on is
        wanted; where one costs a round trip it may come with a later call (its taken_ns
        says when it was read). A backend that does not override this is not watched."""
        return None

    # True when one instance runs every run of a campaign and reads each run's options
    # (run.spec.backend.options) itself; else a campaign makes one instance per distinct
    # options (a backend option as a matrix dimension).
    reads_run_options: ClassVar[bool] = False

    # False when the guests run on another machine (dom0 over ssh): then the host's CPU
    # accounting says nothing about them and the runner does not record host noise.
    measures_local_cpus: ClassVar[bool] = True

    @classmethod
    def cpu_scope(cls, options: dict[str, Any]) -> str:
        """Whose CPUs the guests' `cpus` are, as a campaign's CPU leases name them
        (host/leases.py): '' this host's."""
        return ""

    @classmethod
    def shared_cpu_refusal(cls, options: dict[str, Any]) -> str | None:
        """Why two guests of this backend (with these options) cannot share a CPU, as
        placements make them (several stressors on one other core, same-core); None:
        they can, the host's or the hypervisor's scheduler shares it."""
        return None

    def host_backend(self) -> Backend:
        """The backend that runs host stressors next to this one's guests: one for the
        whole campaign (here: native)."""
        if self._host is None:
            self._host = backend_class("native")({})
        return self._host

    def check_plan(self, runs: list[RunPlan]) -> None:
        """Raise SpecError for what only this backend on this host can refuse (a scheduler
        the hypervisor lacks, given in a matrix value), before any run starts."""

    def cleanup(self, run: RunPlan) -> None:
        """Remove per-run resources. Always called, after every stop."""

    def metadata(self) -> dict[str, Any]:
        """Versions and settings of the hypervisor, stored with each run."""
        return {"backend": self.name}


def workload_args(guest: GuestPlan, run: RunPlan, host_cpus: bool = False) -> list[str]:
    """key=value parameters of a workload (docs/protocol.md section 1). A guest of several
    vCPUs: an smp probe bench is told vcpus=N and each vCPU's CPU (vcpu_cpus=, where a
    hosted program pins its threads: natively, xtalk-rt in a Linux-RT guest); a POSIX-suite
    bench gets its CPUs as cpus= unless the spec gives them, so cyclictest runs a thread on
    each. The CPUs are the host's where the workload runs on the host (`host_cpus`:
    natively), else the guest's own, 0..N-1."""
    seen = guest.cpus if host_cpus else tuple(range(guest.vcpus))
    args = {"bench": guest.bench, "run": run.run_id, "role": guest.role}
    if guest.role == "measurer":
        m = run.spec.measurer
        args |= {"duration_s": run.spec.run.duration_s}
        if m.iterations:
            args["iterations"] = m.iterations
        if m.warmup_iterations:
            args["warmup"] = m.warmup_iterations
    if run.caches and bench_sizes(guest.bench, {}, {}):  # only a bench with a size parameter takes them
        args |= {f"{level}_bytes": nbytes for level, nbytes in run.caches}
    if guest.vcpus > 1 and runs_on_each_vcpu(guest.bench):
        args |= {"vcpus": guest.vcpus, "vcpu_cpus": ",".join(map(str, seen))}
    elif guest.vcpus > 1 and "cpus" not in guest.params and catalogue.load().bench(guest.bench, ("posix",)):
        args["cpus"] = ",".join(map(str, sorted(set(seen))))
    args |= guest.params
    return [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in args.items()]


def runs_on_each_vcpu(bench: str) -> bool:
    """A probe bench that runs on every vCPU of its guest (the catalogue's smp): it is
    given vcpus=N; any other bench of a guest with several vCPUs runs its own threads
    (Linux-RT) or on one."""
    found = catalogue.load().bench(bench, ("probe",))
    return bool(found and found.smp)


def local_cpu_problems(raw: dict) -> list[tuple[tuple, str]]:
    """For check_spec of backends whose guests run on this machine: every CPU of cpus,
    housekeeping_cpus and a guest's own cpus (one per vCPU) must be one xtalk may use here."""
    allowed = allowed_cpus()
    runs = itertools.groupby(enumerate(sorted(allowed)), lambda pair: pair[1] - pair[0])
    spans = [[cpu for _, cpu in run] for _, run in runs]
    available = ", ".join(f"{s[0]}-{s[-1]}" if len(s) > 1 else str(s[0]) for s in spans)
    stressors = raw.get("stressors") if isinstance(raw.get("stressors"), list) else []
    lists = [((key,), raw.get(key)) for key in ("cpus", "housekeeping_cpus")]
    lists += [(loc + ("cpus",), w.get("cpus")) for loc, w in [(("measurer",), raw.get("measurer"))]
              + [(("stressors", i), s) for i, s in enumerate(stressors)] if isinstance(w, dict)]  # a vCPU's CPU each
    out = []
    for loc, cpus in lists:
        for i, cpu in enumerate(cpus if isinstance(cpus, list) else []):
            if isinstance(cpu, int) and not isinstance(cpu, bool) and cpu >= 0 and cpu not in allowed:
                out.append((loc + (i,), f"CPU {cpu} is not available to xtalk on this host (available: {available})"))
    return out

