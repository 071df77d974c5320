"""The results store's records: the one place that knows their keys and format versions.

  campaign.json              CampaignRecord
  runs/<dir>/meta.json       RunRecord (one per attempt of a run; run_record.py)
  runs/<dir>/samples.parquet SAMPLES_SCHEMA (samples_file.py)
  runs/<dir>/events.jsonl    Event: one JSON object per line, a model per event kind
  OUT/platform/<host>-<backend>.json  PlatformRecord (`xtalk calibrate`; results/platform.py)

Every record declares all its keys and refuses others (extra="forbid"): they are written
only through the store (store.py) and read only through it, checked on every save and load
(but by `xtalk list`, a record this very code checked and stamped: record_file.py).

Format history (SCHEMA_VERSION, in campaign.json and every meta.json):
  1  the first format.
  2  runs are numbered by attempt: meta.json `attempt` and the samples column `attempt`
     (1 for a run's first attempt; --resume moves earlier attempts to
     runs/<run_id>.attempt<N> and keeps them).
  3  run status `degraded` (run.stressor_failure = "degrade") and meta.json
     `stressors_watch`: per stressor its exposure, CPU share, times, exit, XT END and
     errors, and whether each timeline event took effect (src/xtalk/running/watch.py).
  4  the records are complete contracts: every key of meta.json, campaign.json and
     events.jsonl is declared (run_record.py, below) and no other is accepted. Folded in
     from version 3, where they came without a new version: meta.json `caches` and
     `sizes`, the bytes of the guests' size parameters (src/xtalk/spec/sizes.py); `platform`,
     the host's cost of one preemption on the run's backend (Platform).
  5  meta.json `pressure`: per stressor the pressure it achieved over the measured window
     (rate, unit, passes, work per pass, window seconds) or why it is not known
     (not_reported; src/xtalk/running/pressure.py). An older record reads with every stressor's
     `not_reported` saying its xtalk did not count passes.
  6  meta.json `files`: the manifest of the run's files (size, mtime, SHA-256;
     src/xtalk/results/manifest.py), written when the run is finalised; a listed file
     missing or changed makes the run `damaged`. An older record has none and is read
     as before (nothing to check it against).
  7  meta.json `instrument`: what an instrument's capture said (stimuli, answered, lost
     responses with their times, resolution; src/xtalk/instruments/), and a metric's
     `clock` = "host": its values and times are host ns (an instrument's samples). An
     older record has neither.
  8  campaign.json and meta.json `checked`: the stamp of the code that checked the record
     against its models when it wrote it (record_file.py): `xtalk list` reads a record
     stamped by this very code without its models. An older record has none and is read
     through them.
  9  campaign.json `record_sha256`, as meta.json has had since format 7: its plan, spec and
     decisions are hashed. Every format-9 campaign.json and every format-8 or later meta.json
     is written with its hash, and a finished run record of format 6 or later with its
     manifest: one without is damaged, and so is a run record of an older format than its
     campaign.json (a campaign keeps the format it was started in, and no xtalk writes a
     run older than that): a record cannot escape its checks by claiming an older format.
     An older record without a hash reads as before, and `show --verify` says it cannot be
     verified.
campaign.json `fleet.boards` (a fleet campaign's decisions about its boards) came without a
new version: a key with a default, absent from every campaign.json before it.
Readers take every version up to SCHEMA_VERSION, bringing older ones up to date on load
(a version-1 run's attempt comes from its directory; 1 to 3 hold no key that 4 lacks;
4's stressors get their `pressure` reason),
and refuse newer ones. A record that cannot be read raises RecordError naming the file
and the reason.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError

from .record_file import (CAMPAIGN_HASHED_SINCE, SCHEMA_VERSION, RecordError, format_version, hash_problem, read_back,
                          read_object, sealed_json, stamped)
from .run_record import JSON, Part, Platform, RunRecord

BEFORE_PRESSURE = "recorded by an xtalk before format 5, which did not count a stressor's passes"



class BoardDecision(Part):
    """What a campaign decided about a target that failed it: a fleet's board
    (fleet/decisions.py) or a backend's dom0 (backends/xen/target.py)."""

    # restarted and given runs again; set aside: a board silent (down) or suspect, a dom0 (set aside)
    state: Literal["restarted", "down", "suspect", "set aside"]
    reason: str                # what the board did, and since when it was silent
    at: str                    # when it was decided (ISO 8601, UTC)
    since: str | None = None   # its last sign of life before it stopped answering (ISO 8601, UTC)


class CampaignFleet(Part):
    mode: str
    boards: dict[str, list[BoardDecision]] = {}  # per place, its decisions oldest first (every session's)


class CampaignRecord(Part):
    schema_version: int
    name: str
    id: str
    created_at: str
    xtalk_version: str = ""
    spec_hash: str = ""
    spec: dict[str, JSON]      # the spec as parsed (spec/model.py owns its keys)
    host: dict[str, JSON] = {}  # host facts (host/metadata.py owns their keys)
    planned_runs: list[str] = []
    fleet: CampaignFleet | None = None  # a fleet campaign's mode
    # a backend's targets that stopped answering (a dom0: backends/xen/target.py), by name, decisions oldest first
    targets: dict[str, list[BoardDecision]] | None = None
    # what xtalk's own study meant by the configurations (interference/study.py, search/confirm.py)
    study: dict[str, JSON] | None = None
    checked: str | None = None  # the stamp of the code that checked it (record_file.py)
    record_sha256: str | None = None  # its own hash (record_file.py), from format 9


class PlatformRecord(Platform):
    """OUT/platform/<hostname>-<backend>.json: the Platform, with the fit's 95 % intervals
    and the steals it came from."""

    hostname: str
    backend: str
    preemption_cost_ci_us: list[float]
    slope_ci: list[float]
    steal_us: list[float]
    period_us: float
    steals: int


class MeasuredLevel(Part):
    """A cache level as `xtalk host caches` measured it (calibration/caches.py)."""

    level: int
    size_bytes: int                      # effective capacity
    latency_ns: float
    shared_with_neighbour: bool | None = None   # None: the sharing test did not run
    sharing: dict[str, JSON] | None = None


class CachesRecord(Part):
    """OUT/platform/<hostname>-<backend>-caches.json: the hierarchy measured on a host and
    backend, with the machine it was measured on and what that machine reported."""

    hostname: str
    backend: str
    platform: str                        # the backend, its guests' arch and accelerator (run_caches.platform_name)
    measured_at: str
    cpu_model: str
    kernel: str
    cpus: list[int]                      # the measured CPU and its neighbour's
    levels: list[MeasuredLevel]
    memory_ns: float | None
    bandwidth: dict[str, float | None] | None = None
    line_bytes: int | None = None        # measured: where the latency stops rising with the stride; None: not answered
    line: dict[str, Any] | None = None   # the line test: each solo run's latency per stride, why not answered
    machine: dict[str, Any] | None = None  # whether the machine could answer, per answer (calibration/caches_machine.py)
    voided: dict[str, str] | None = None   # the answers it could not give, and why
    reported: dict[str, int]             # l1, l2, l3, llc as the machine reported them
    reported_line_bytes: int | None = None
    curve: dict[str, list[float]]        # bytes, ns: the latency curve
    campaigns: list[str]


# -- events.jsonl: one model per kind (the runner and running/watch.py write them) ---------------
class _Event(Part):
    host_ns: int | None = None


class GuestStart(_Event):
    """A guest was started (paused: held until its timeline start); its facts spread in: the
    keys of its backend's GuestFacts, which the runner holds them to before it writes this.
    prepared_ns: since when (host ns) it was launched ahead of its run, held paused, after
    the previous run's guests stopped (running/ahead.py); absent: started when the run asked."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    kind: Literal["guest_start"]
    guest: str
    paused: bool = False
    t_s: float | None = None
    prepared_ns: int | None = None


class MeasurerBegin(_Event):
    kind: Literal["measurer_begin"]


class TimelineDone(_Event):
    """A timeline event executed: when it was planned and when it happened."""

    kind: Literal["timeline"]
    action: str
    target: str
    planned_s: float | None = None
    t_s: float | None = None
    error_ms: float | None = None


class TimelineChecked(_Event):
    """Whether a timeline event took effect on a stressor (running/watch.py)."""

    kind: Literal["timeline_effect"]
    target: str
    action: str
    planned_s: float
    took_effect: bool | None
    detail: str
    t_s: float | None = None


class StressorExited(_Event):
    kind: Literal["stressor_exit"]
    guest: str
    status: int
    t_s: float | None = None
    guest_end: dict[str, str] | None = None


class RunEnd(_Event):
    kind: Literal["run_end"]
    status: str
    reason: str = ""


class InstrumentStart(_Event):
    """An instrument began capturing (xtalk.instruments)."""

    kind: Literal["instrument_start"]
    instrument: str


class InstrumentStop(_Event):
    kind: Literal["instrument_stop"]
    samples: int


Event = Annotated[Union[GuestStart, MeasurerBegin, TimelineDone, TimelineChecked, StressorExited, RunEnd,
                        InstrumentStart, InstrumentStop], Field(discriminator="kind")]
EVENT = TypeAdapter(Event, config=ConfigDict(defer_build=True))  # built at the first event checked


def event_record(kind: str, host_ns: int, fields: dict) -> dict:
    """An event checked against its kind's model (ValueError naming the key if not)."""
    try:
        return EVENT.validate_python({"kind": kind, "host_ns": host_ns, **fields}).dump()
    except ValidationError as err:
        raise ValueError(f"event {kind}: {_invalid(err)}") from None


def _invalid(err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"{where}: {first['msg']}" if where else first["msg"]


def valid(cls: type[Part], data: dict, path: Path) -> dict:
    """`data` checked against the record class (a RecordError naming `path` if not)."""
    try:
        return cls.model_validate(data).dump()
    except ValidationError as err:
        raise RecordError(path, _invalid(err)) from None


RUN_HASHED_SINCE, MANIFEST_SINCE = 8, 6  # format history above (and record_file's CAMPAIGN_HASHED_SINCE)


def load_campaign(path: Path) -> dict:
    """campaign.json (the same in every version but its hash: it keeps the version it was
    written in); one whose content is not what it was written with is damaged."""
    obj = read_object(path)
    format_version(obj, path)
    record = valid(CampaignRecord, obj, path)
    if wrong := hash_problem(obj, CAMPAIGN_HASHED_SINCE):
        raise RecordError(path, wrong, label="damaged", record=record)
    return record


def sealed_campaign(record: dict) -> str:
    """campaign.json's text: checked, stamped and sealed (load_campaign checks it)."""
    return sealed_json(stamped(valid(CampaignRecord, record, Path("campaign.json"))))


def load_run(path: Path, attempt: int, campaign_version: int = 1) -> dict:
    """A run's meta.json, brought up to SCHEMA_VERSION; `attempt` is what its directory
    says (for version 1). A record whose content is not what it was written with (its
    `record_sha256`) is `damaged`: meta.json is not in its own manifest, and what it holds
    (the pressure reached, the counter frequency) reaches reports and evidence. So is one
    that claims an older format than its campaign's (`campaign_version`) or than its own
    hash and manifest show (format history: a downgrade)."""
    obj = read_object(path)
    version = format_version(obj, path)
    record = valid(RunRecord, migrated(obj, version, attempt), path)  # a newer or invalid one: said so
    wrong = hash_problem(obj, RUN_HASHED_SINCE)
    if not wrong and version < campaign_version:
        wrong = (f"format {version}, older than its campaign.json's {campaign_version}: a campaign keeps the format it "
                 "was started in and no xtalk writes an older run into it")
    if not wrong and version >= MANIFEST_SINCE and obj.get("status") != "running" and not obj.get("files"):
        wrong = f"a finished run of format {version} without the manifest of its files, which every one is written with"
    if wrong:
        raise RecordError(path, wrong, label="damaged", record=record)
    return record


def sealed(record: dict, checked: bool = True) -> str:
    """A run record's meta.json text, with the hash of what it holds (load_run checks it)
    and, where it was `checked` whole (with its events), this code's stamp (record_file.py)."""
    return sealed_json(stamped(record) if checked else read_back(record))


def migrated(obj: dict, version: int, attempt: int) -> dict:
    """A run record of an older version as the current one (format history above)."""
    if version == 1:
        obj = {**obj, "attempt": attempt}
    if version < 5:
        obj = {**obj, "pressure": {s["name"]: {"not_reported": BEFORE_PRESSURE}
                                   for s in obj.get("stressors") or [] if isinstance(s, dict) and s.get("name")}}
    return {**obj, "schema_version": SCHEMA_VERSION}


def load_platform(path: Path) -> dict:
    return valid(PlatformRecord, read_object(path), path)


def load_caches(path: Path) -> dict:
    return valid(CachesRecord, read_object(path), path)


def read_events(path: Path) -> list[dict]:
    """The events of a run. A last line without its newline (cut by a kill) is dropped;
    any other line that is not an event makes the file corrupt."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as err:
        raise RecordError(path, err.strerror or str(err)) from None
    out = []
    for i, line in enumerate(data.split(b"\n")[:-1], 1):
        if not line.strip():
            continue
        try:
            out.append(EVENT.validate_json(line).dump())
        except ValidationError as err:
            raise RecordError(path, f"line {i}: {_invalid(err)}") from None
    return out
