"""The results store's records: the one place that knows their keys and format versions.

  campaign.json              CampaignRecord
  runs/<dir>/meta.json       RunRecord (one per attempt of a run)
  runs/<dir>/samples.parquet SAMPLES_SCHEMA
  runs/<dir>/events.jsonl    Event, one JSON object per line
  OUT/platform/<host>-<backend>.json  PlatformRecord (`xtalk calibrate`; results/platform.py)

Format history (SCHEMA_VERSION, in campaign.json and every meta.json):
  1  the first format.
  2  runs are numbered by attempt: meta.json `attempt` and the samples column `attempt`
     (1 for a run's first attempt; --resume moves earlier attempts to
     runs/<run_id>.attempt<N> and keeps them).
  3  run status `degraded` (run.stressor_failure = "degrade") and meta.json
     `stressors_watch`: per stressor its exposure, CPU share, times, exit, XT END and
     errors, and whether each timeline event took effect (src/xtalk/watch.py).
     Later, without a new version (a reader that lacks them only shows less): meta.json
     `caches` and `sizes`, the bytes of the guests' size parameters (src/xtalk/sizes.py);
     `platform`, the host's cost of one preemption on the run's backend (Platform).
Readers take every version up to SCHEMA_VERSION, bringing older ones up to date on load
(a version-1 run's attempt comes from its directory), and refuse newer ones. A record
that cannot be read raises RecordError naming the file and the reason.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, ConfigDict, ValidationError

from .. import __version__
from ..errors import InfrastructureError

SCHEMA_VERSION = 3

RunStatus = Literal["running", "pass", "fail", "degraded", "error", "interrupted"]

_STRING_CODES = pa.dictionary(pa.int32(), pa.string())
SAMPLES_SCHEMA = pa.schema([
    ("run_id", _STRING_CODES), ("config_id", _STRING_CODES), ("attempt", pa.uint16()),
    ("metric", _STRING_CODES),
    ("seq", pa.uint64()), ("t", pa.uint64()), ("value", pa.uint64()), ("flags", pa.uint32()),
    ("value_ns", pa.float64()), ("t_s", pa.float64()), ("warmup", pa.bool_()),
])
SAMPLE_COLUMNS_V1 = [n for n in SAMPLES_SCHEMA.names if n != "attempt"]  # what every format has


class RecordError(InfrastructureError):
    """A record that cannot be read: `label` says how (corrupt, newer format)."""

    def __init__(self, file: Path, reason: str, label: str = "corrupt"):
        self.file, self.reason, self.label = Path(file), reason, label
        super().__init__(f"{file}: {reason}")


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow")  # facts the runner and backends add are kept as they are

    def dump(self) -> dict:
        return self.model_dump(exclude_unset=True)


class CampaignRecord(_Record):
    schema_version: int
    name: str
    id: str
    created_at: str
    xtalk_version: str = ""
    spec_hash: str = ""
    spec: dict[str, Any]
    host: dict[str, Any] = {}
    planned_runs: list[str] = []


class Metric(_Record):
    name: str
    unit: str | None = None
    kind: str | None = None


class StressorWatch(_Record):
    """How one stressor did over the measured window (src/xtalk/watch.py)."""

    exposure: float | None = None  # share of its on-time it was there (active or idle)
    cpu_share: float | None = None
    on_s: float = 0.0
    stopped_s: float = 0.0
    alive: bool = True
    exit: dict[str, Any] | None = None
    end: dict[str, str] | None = None
    errors: list[dict[str, str]] = []
    timeline: list[dict[str, Any]] = []


class Size(_Record):
    """A size parameter as the spec gave it (or its default) and in bytes (None: unknown)."""

    text: str
    bytes: int | None = None


class Platform(_Record):
    """A run's host and backend as `xtalk calibrate` measured them: one preemption's cost
    (the intercept of measured gap against injected steal), the slope of that fit, when,
    and the calibration campaign's id."""

    preemption_cost_us: float
    slope: float
    calibrated_at: str
    source: str


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


class RunRecord(_Record):
    schema_version: int
    run_id: str
    config_id: str
    attempt: int
    index: int = 0
    config: dict[str, Any] = {}
    status: RunStatus
    reason: str = ""
    warmup: bool = False
    warmup_s: float | None = None
    duration_s: float | None = None
    started_at: str | None = None
    ended_at: str | None = None
    sample_count: int | None = None
    lost_samples: int | None = None
    ring_lost_samples: int | None = None
    freq_hz: float | None = None
    origin_host_ns: int | None = None
    metrics: dict[str, Metric] = {}
    stressors_watch: dict[str, StressorWatch] = {}
    caches: dict[str, int | str] = {}  # l1, l2, l3, llc in bytes and their source (measurer, host)
    sizes: dict[str, Size] = {}  # spec path of a size parameter -> Size
    platform: Platform | None = None  # absent where the host and backend were never calibrated


class Event(_Record):
    kind: str
    host_ns: int | None = None
    t_s: float | None = None


def _invalid(err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"{where}: {first['msg']}" if where else first["msg"]


def valid(cls: type[_Record], data: dict, path: Path) -> dict:
    """`data` checked against the record class (a RecordError naming `path` if not)."""
    try:
        return cls.model_validate(data).dump()
    except ValidationError as err:
        raise RecordError(path, _invalid(err)) from None


def _read_object(path: Path) -> dict:
    try:
        data = path.read_bytes()
    except OSError as err:
        raise RecordError(path, "missing" if isinstance(err, FileNotFoundError) else err.strerror or str(err)) from None
    if not data.strip():
        raise RecordError(path, "empty")
    try:
        obj = json.loads(data)
    except ValueError as err:  # JSONDecodeError, UnicodeDecodeError
        raise RecordError(path, f"not valid JSON ({err})") from None
    if not isinstance(obj, dict):
        raise RecordError(path, "not a JSON object")
    return obj


def _version(obj: dict, path: Path) -> int:
    version = obj.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise RecordError(path, f"no valid schema_version ({version!r})")
    if version > SCHEMA_VERSION:
        raise RecordError(path, f"format version {version} is newer than xtalk {__version__} reads (1 to "
                                f"{SCHEMA_VERSION}): use a newer xtalk", label="newer format")
    return version


def load_campaign(path: Path) -> dict:
    obj = _read_object(path)
    _version(obj, path)  # campaign.json is the same in every version (it keeps the one it was written in)
    return valid(CampaignRecord, obj, path)


def load_run(path: Path, attempt: int) -> dict:
    """A run's meta.json; `attempt` is what its directory says (for version 1)."""
    obj = _read_object(path)
    if _version(obj, path) == 1:
        obj = {**obj, "attempt": attempt}
    return valid(RunRecord, {**obj, "schema_version": SCHEMA_VERSION}, path)


def load_platform(path: Path) -> dict:
    return valid(PlatformRecord, _read_object(path), path)


def dump_json(record: dict) -> str:
    return json.dumps(record, indent=2, sort_keys=True, default=str) + "\n"


def check_samples(path: Path) -> None:
    """The samples file is there, a Parquet file (its footer reads) with every column."""
    try:
        names = pq.read_schema(path).names
    except FileNotFoundError:
        raise RecordError(path, "missing") from None
    except (OSError, pa.ArrowException) as err:
        raise RecordError(path, f"not a readable Parquet file ({err})") from None
    missing = [c for c in SAMPLE_COLUMNS_V1 if c not in names]
    if missing:
        raise RecordError(path, f"no column {', '.join(missing)}")


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
            out.append(Event.model_validate_json(line).dump())
        except ValidationError as err:
            raise RecordError(path, f"line {i}: {_invalid(err)}") from None
    return out
