"""Facts of a platform (this host and a backend) that xtalk measured, kept in the results
directory: `xtalk calibrate`'s as OUT/platform/<hostname>-<backend>.json
(records.PlatformRecord), recorded in the meta.json of every later run on that host and
backend (`platform`); `xtalk host caches`'s as OUT/platform/<hostname>-<backend>-caches.json
(records.CachesRecord), which size expressions resolve against (spec/sizes.py).
The records' pydantic models are imported where a record is read or written, not with
this module: `xtalk spec check` asks for a file most hosts do not have (issue 46)."""
from __future__ import annotations

from pathlib import Path

from ..files import write_atomic
from ..errors import InfrastructureError


def platform_path(out: Path, hostname: str, backend: str) -> Path:
    return Path(out) / "platform" / f"{hostname}-{backend}.json"


def caches_path(out: Path, hostname: str, platform: str) -> Path:
    """`platform`: the backend kind, with its guests' arch and accelerator where they are
    not the host's and auto (spec/run_caches.platform_name)."""
    return Path(out) / "platform" / f"{hostname}-{platform}-caches.json"


def write_platform(out: Path, hostname: str, backend: str, **facts) -> Path:
    """Writes the record (PlatformRecord's fields but the host, backend and time) in place of any earlier one."""
    from .records import PlatformRecord, valid
    from .store import now_iso
    path = platform_path(out, hostname, backend)
    record = valid(PlatformRecord, {"hostname": hostname, "backend": backend, "calibrated_at": now_iso(), **facts}, path)
    return _write(path, record)


def write_caches(out: Path, hostname: str, platform: str, **facts) -> Path:
    """Writes the measured hierarchy (CachesRecord's fields but the host, platform and time)."""
    from .records import CachesRecord, valid
    from .store import now_iso
    path = caches_path(out, hostname, platform)
    return _write(path, valid(CachesRecord, {"hostname": hostname, "platform": platform, "measured_at": now_iso(),
                                             **facts}, path))


def caches_fact(out: Path, hostname: str | None, platform: str) -> dict | None:
    """The measured hierarchy of this host and platform, None where never measured."""
    path = caches_path(out, hostname or "", platform)
    if not hostname or not path.is_file():
        return None
    from .records import load_caches
    return load_caches(path)


def caches_facts(out: Path, hostname: str) -> list[dict]:
    """Every hierarchy measured on this host, one a platform."""
    from .records import load_caches
    return [load_caches(p) for p in sorted((Path(out) / "platform").glob(f"{hostname}-*-caches.json"))]


def _write(path: Path, record: dict) -> Path:
    from .record_file import dump_json
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InfrastructureError(f"cannot create {path.parent}: {err.strerror or err}") from None
    write_atomic(path, dump_json(record))
    return path


def platform_fact(out: Path, hostname: str | None, backend: str) -> dict | None:
    """A run's meta.json `platform` (records.Platform), None where never calibrated."""
    path = platform_path(out, hostname or "", backend)
    if not hostname or not path.is_file():
        return None
    from .records import Platform, load_platform
    record = load_platform(path)
    return {k: record[k] for k in Platform.model_fields}
