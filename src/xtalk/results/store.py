"""Write and find campaigns and runs on disk (layout in schema.py).

Everything a run records goes to an O_APPEND file descriptor the moment it arrives, so
a run killed midway (SIGKILL of xtalk itself included) keeps it: the page cache
outlives the process. meta.json is replaced atomically. A run left 'running' by a dead
xtalk is recovered as 'interrupted' (samples.parquet built from samples.bin) the next
time the campaign is opened for writing.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..errors import InfrastructureError
from .finalize import finalize_run
from .schema import SAMPLE_DTYPE, SCHEMA_VERSION


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")


def write_json_atomic(path: Path, data: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")
    os.replace(tmp, path)


def read_json(path: Path) -> dict:
    return json.loads(path.read_text())


def spec_hash(spec_text: str) -> str:
    return hashlib.sha256(spec_text.encode()).hexdigest()[:16]


class RunWriter:
    """Appends one run's console output, events, clock pairs and samples."""

    def __init__(self, path: Path, meta: dict):
        self.path = path
        self.meta = meta
        (path / "console").mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
        self._fds = {
            "events": os.open(path / "events.jsonl", flags, 0o644),
            "clock": os.open(path / "clock.csv", flags, 0o644),
            "samples": os.open(path / "samples.bin", flags, 0o644),
        }
        self._console: dict[str, int] = {}
        self.sample_count = 0
        self.save_meta()

    def save_meta(self, **fields: Any) -> None:
        self.meta.update(fields)
        write_json_atomic(self.path / "meta.json", self.meta)

    def console(self, guest: str, data: bytes) -> None:
        fd = self._console.get(guest)
        if fd is None:
            fd = self._console[guest] = os.open(
                self.path / "console" / f"{guest}.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644
            )
        os.write(fd, data)

    def event(self, kind: str, host_ns: int, **fields: Any) -> None:
        record = {"kind": kind, "host_ns": host_ns, **fields}
        os.write(self._fds["events"], (json.dumps(record, sort_keys=True) + "\n").encode())

    def clock(self, host_ns: int, counter: int) -> None:
        os.write(self._fds["clock"], f"{host_ns},{counter}\n".encode())

    def samples(self, records: np.ndarray) -> None:
        if len(records):
            os.write(self._fds["samples"], np.ascontiguousarray(records, dtype=SAMPLE_DTYPE).tobytes())
            self.sample_count += len(records)

    def close(self) -> None:
        for fd in list(self._fds.values()) + list(self._console.values()):
            os.fsync(fd)
            os.close(fd)
        self._fds, self._console = {}, {}

    def finish(self, status: str, reason: str = "", **fields: Any) -> dict:
        """Close files, build samples.parquet, record the outcome. Safe to call once."""
        if self._fds:
            self.close()
        self.meta.update(fields)
        self.meta.update(status=status, reason=reason, ended_at=now_iso())
        self.meta.update(finalize_run(self.path, self.meta))
        self.save_meta()
        return self.meta


class CampaignStore:
    def __init__(self, path: Path):
        self.path = path
        self.info = read_json(path / "campaign.json")

    @classmethod
    def create(cls, out: Path, name: str, spec_text: str, spec_raw: dict, host: dict,
               planned_runs: list[str]) -> "CampaignStore":
        stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        path = out / f"{name}-{stamp}"
        suffix = 1
        while path.exists():
            suffix += 1
            path = out / f"{name}-{stamp}.{suffix}"
        try:
            (path / "runs").mkdir(parents=True)
        except OSError as err:
            raise InfrastructureError(f"cannot create results directory {path}: {err.strerror}") from None
        (path / "spec.toml").write_text(spec_text)
        write_json_atomic(path / "campaign.json", {
            "schema_version": SCHEMA_VERSION, "name": name, "id": path.name,
            "created_at": now_iso(), "xtalk_version": __version__,
            "spec_hash": spec_hash(spec_text), "spec": spec_raw, "host": host,
            "planned_runs": planned_runs,
        })
        return cls(path)

    @classmethod
    def latest(cls, out: Path, name: str) -> "CampaignStore | None":
        candidates = sorted(
            (p for p in out.glob(f"{name}-*") if (p / "campaign.json").is_file()
             and re.fullmatch(rf"{re.escape(name)}-\d{{8}}-\d{{6}}(\.\d+)?", p.name)),
            key=lambda p: p.name,
        )
        return cls(candidates[-1]) if candidates else None

    def run_dir(self, run_id: str) -> Path:
        return self.path / "runs" / run_id

    def runs(self) -> list[dict]:
        metas = [m for p in sorted((self.path / "runs").glob("*/meta.json"))
                 if (m := read_json(p)).get("run_id") == p.parent.name]
        order = {rid: i for i, rid in enumerate(self.info.get("planned_runs", []))}
        return sorted(metas, key=lambda m: order.get(m["run_id"], len(order)))

    def completed_run_ids(self) -> set[str]:
        return {m["run_id"] for m in self.runs() if m.get("status") in ("pass", "fail")}

    def recover_interrupted(self) -> list[str]:
        """Mark runs left 'running' by a dead xtalk as interrupted, keeping their samples."""
        recovered = []
        for meta in self.runs():
            if meta.get("status") == "running":
                writer_meta = dict(meta, status="interrupted",
                                   reason="xtalk stopped before the run ended", ended_at=now_iso())
                path = self.run_dir(meta["run_id"])
                writer_meta.update(finalize_run(path, writer_meta))
                write_json_atomic(path / "meta.json", writer_meta)
                recovered.append(meta["run_id"])
        return recovered

    def start_run(self, meta: dict) -> RunWriter:
        path = self.run_dir(meta["run_id"])
        if path.exists():  # a previous attempt (resume): keep it next to the new one
            attempt = 1
            while path.with_name(f"{path.name}.attempt{attempt}").exists():
                attempt += 1
            path.rename(path.with_name(f"{path.name}.attempt{attempt}"))
        meta = dict(meta, schema_version=SCHEMA_VERSION, status="running",
                    started_at=now_iso(), xtalk_version=__version__)
        return RunWriter(path, meta)


def list_campaigns(out: Path) -> list[CampaignStore]:
    if not out.is_dir():
        return []
    return [CampaignStore(p) for p in sorted(out.iterdir()) if (p / "campaign.json").is_file()]
