"""Write and find campaigns and runs on disk (layout in schema.py, records in records.py).

Everything a run records goes to an O_APPEND file descriptor the moment it arrives, so
a run killed midway (SIGKILL of xtalk itself included) keeps it: the page cache
outlives the process; samples.bin's disk blocks are reserved ahead of its appends
(reserve.py: appends to unreserved blocks cost several times more). meta.json is
replaced atomically, flushed to disk at the run's end (not while it runs: no fsync
inside a measured window). A run left 'running' by a dead xtalk is recovered as
'interrupted' (samples.parquet built from samples.bin) the next time the campaign is
opened for writing.

Records (records.py) are written only here, each checked against its model on every
save (a key the model does not declare fails at once) and stamped so (record_file.py), and
read only through here: checked again on every read, but by `xtalk list` (quick), which
reads a record this very code stamped as it is, without pydantic.

Once a run's files are final (its end, or its recovery as interrupted) meta.json gets
their manifest (manifest.py). Reading: a campaign whose campaign.json cannot be read
raises RecordError; a run whose meta.json, samples.parquet or events.jsonl cannot be
read (`corrupt`), or one of whose files is missing or changed since its manifest
(`damaged`), is listed apart (file and reason) and left out, never its neighbours;
--resume redoes it, its files kept as an earlier attempt. Every attempt started is also
noted in the campaign's runs.ledger (one JSON line, appended), so a run whose directory
is gone is `missing`, not a run never started.
A samples.parquet its run's manifest lists has been checked with it (as written: all of
its columns, a footer that reads); one it does not list (a run from before manifests) is
opened to check its footer and columns. NumPy and Arrow are imported only by what writes
or builds samples, so that `xtalk list` and the other readers of records start without them.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .. import __version__
from ..files import open_regular, read_regular, write_atomic
from ..errors import InfrastructureError
from .manifest import ManifestChecker, manifest
from .record_file import CAMPAIGN_HASHED_SINCE, SCHEMA_VERSION, RecordError, checked_record
from .reserve import Reserve

if TYPE_CHECKING:
    import numpy as np

COMPLETED = ("pass", "fail", "degraded")  # what --resume does not redo
LEDGER = "runs.ledger"  # every attempt started, a JSON line each: run_id, attempt, config_id, config
LEDGER_LIMIT = 64 << 20  # read at most this much of it (a ledger line is ~200 bytes)
ATTEMPT_DIR = re.compile(r"(?P<run_id>.+)\.attempt(?P<attempt>\d+)")


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")


def spec_hash(spec_text: str) -> str:
    return hashlib.sha256(spec_text.encode()).hexdigest()[:16]


class RunWriter:
    """Appends one run's console output, events, clock pairs and samples."""

    def __init__(self, path: Path, meta: dict):
        self.path = path
        self.meta = dict(meta, schema_version=SCHEMA_VERSION, status="running", started_at=now_iso(),
                         xtalk_version=__version__)
        (path / "console").mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
        self._fds = {
            "events": os.open(path / "events.jsonl", flags, 0o644),
            "clock": os.open(path / "clock.csv", flags, 0o644),
            "samples": os.open(path / "samples.bin", flags, 0o644),
        }
        self._console: dict[str, int] = {}
        self._reserve = Reserve(self._fds["samples"])  # disk blocks ahead of the samples (reserve.py)
        self.sample_count = 0
        self.save_meta()

    def save_meta(self, **fields: Any) -> None:
        """meta.json while the run goes on: not flushed to disk (files.py), so that no
        fsync falls inside the measured window; finish() flushes the final one."""
        self.meta.update(fields)
        save_run_record(self.path, self.meta, durable=False)

    def console(self, guest: str, data: bytes) -> None:
        fd = self._console.get(guest)
        if fd is None:
            fd = self._console[guest] = os.open(
                self.path / "console" / f"{guest}.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644
            )
        os.write(fd, data)

    def event(self, kind: str, host_ns: int, **fields: Any) -> None:
        from .records import event_record
        record = event_record(kind, host_ns, fields)
        os.write(self._fds["events"], (json.dumps(record, sort_keys=True) + "\n").encode())

    def clock(self, host_ns: int, counter: int) -> None:
        os.write(self._fds["clock"], f"{host_ns},{counter}\n".encode())

    def samples(self, records) -> None:
        """Append them (a NumPy array) to samples.bin straight from the array's memory (no bytes copy)."""
        import numpy as np

        from .schema import SAMPLE_DTYPE
        if len(records):
            self.append_slots([np.ascontiguousarray(records, dtype=SAMPLE_DTYPE).view(np.uint64)])

    def append_slots(self, parts: list[np.ndarray]) -> None:
        """Append whole samples given as contiguous 64-bit words (views of a ring's memory:
        RingReader.move_to), in one write for all the parts."""
        from .schema import SAMPLE_DTYPE
        self.sample_count += append_all(self._fds["samples"], self._reserve, parts) // SAMPLE_DTYPE.itemsize

    def cut_samples(self, count: int) -> None:
        """Take samples.bin back to its first `count` samples (a batch found torn after it
        was written: RingReader.move_to appends its whole slots again)."""
        from .schema import SAMPLE_DTYPE
        self._reserve.cut(count * SAMPLE_DTYPE.itemsize)
        self.sample_count = count

    def close(self) -> None:
        """Flush the run's files to disk, all at once: the filesystem's journal commits
        them together (6 fsyncs took ~3 ms so, ~12 ms one after another)."""
        self._reserve.trim()
        fds = list(self._fds.values()) + list(self._console.values())
        self._fds, self._console = {}, {}
        try:
            with ThreadPoolExecutor(len(fds)) as flush:
                list(flush.map(os.fsync, fds))
        finally:
            for fd in fds:
                os.close(fd)

    def finish(self, status: str, reason: str = "", **fields: Any) -> dict:
        """Close files, build samples.parquet, record the outcome. Safe to call once."""
        if self._fds:
            self.close()
        self.meta.update(fields)
        from .finalize import finalize_run
        self.meta.update(status=status, reason=reason, ended_at=now_iso())
        self.meta.update(finalize_run(self.path, self.meta))
        self.meta["files"] = manifest(self.path)
        save_run_record(self.path, self.meta)
        return self.meta


def append_all(fd: int, reserve: Reserve, parts: list[np.ndarray]) -> int:
    """Append the arrays' memory to an O_APPEND file, its blocks reserved ahead (one
    writev for all of them, more only for a write the kernel cut short); the bytes written."""
    data = [memoryview(part).cast("B") for part in parts if len(part)]
    size = sum(len(d) for d in data)
    reserve.append(size)
    while data:  # a regular file takes all but the largest writes at once (Linux: < 2 GiB)
        written = os.writev(fd, data)
        while data and written >= len(data[0]):
            written -= len(data.pop(0))
        if data:
            data[0] = data[0][written:]
    return size


def save_run_record(path: Path, meta: dict, durable: bool = True) -> None:
    """meta.json, checked, sealed, and stamped as checked where the events.jsonl its
    manifest lists is an events file too (record_file.py)."""
    from .records import RunRecord, read_events, sealed, valid
    record = valid(RunRecord, meta, path / "meta.json")
    events_checked = True
    if "events.jsonl" in (record.get("files") or {}):
        try:
            read_events(path / "events.jsonl")
        except RecordError:
            events_checked = False  # the readers say what is wrong with it
    write_atomic(path / "meta.json", sealed(record, checked=events_checked), durable)


def read_run_record(path: Path) -> dict:
    """The meta.json of a run directory outside a campaign (a fleet worker's, sent back)."""
    return _records().load_run(path / "meta.json", 1)


def save_campaign_record(path: Path, record: dict) -> None:
    write_atomic(path / "campaign.json", _records().sealed_campaign(record))


@dataclass(frozen=True)
class StoredRun:
    dir: Path
    meta: dict
    final: bool  # the run's last attempt (earlier ones: runs/<run_id>.attempt<N>)


@dataclass(frozen=True)
class DamagedRun:
    dir: Path
    error: RecordError
    meta: dict | None  # the record, when meta.json itself was readable

    def row(self, store_path: Path) -> dict:
        """What `show`, `query` and the report say about it; `campaign_file`: the damage is
        in a file of the campaign itself (runs.ledger, spec.toml), not of a run."""
        meta = self.meta or {}
        return {"run": self.dir.name, "config_id": meta.get("config_id"), "status": self.error.label,
                "final": not ATTEMPT_DIR.fullmatch(self.dir.name), "campaign_file": self.dir.parent == store_path,
                "file": str(self.error.file.relative_to(store_path)), "reason": self.error.reason}


@dataclass(frozen=True)
class RunIndex:
    runs: list[StoredRun]      # readable attempts, in plan order, earlier attempts first
    damaged: list[DamagedRun]

    def final(self) -> list[dict]:
        return [r.meta for r in self.runs if r.final]

    def sample_files(self) -> list[Path]:
        """The samples.parquet of each final attempt whose run has ended."""
        return [r.dir / "samples.parquet" for r in self.runs if r.final and r.meta["status"] != "running"]

    def left_out(self, store_path: Path, unreadable: dict[str, RecordError],
                 used: list[dict]) -> tuple[list[dict], list[dict]]:
        """The damaged runs (and those whose samples failed to read, `unreadable` by run id)
        as rows, and the warnings about them: each run, and each configuration that has
        no run left for the statistics (`used`: the runs they use)."""
        damaged = self.damaged + [DamagedRun(r.dir, unreadable[r.meta["run_id"]], r.meta) for r in self.runs
                                  if r.final and r.meta["run_id"] in unreadable]
        rows = [d.row(store_path) for d in damaged]
        warnings = [{"level": "error", "scope": r["run"], "message": f"{r['status']}: {r['file']}: {r['reason']} — "
                     + ("the campaign's own file: its runs are read, but the campaign is not as it was written"
                        if r["campaign_file"] else
                        "left out of the statistics" if r["final"] else "an earlier attempt, not used")}
                    for r in rows]
        kept = {m.get("config_id") for m in used}
        for config in sorted({r["config_id"] for r in rows if r["final"] and r["config_id"]} - kept):
            warnings.append({"level": "error", "scope": config, "message": "no run of this configuration is left for "
                             "the statistics (damaged files or failed runs): no statistics and no verdict for it"})
        return rows, warnings


class CampaignStore:
    """A campaign on disk. `quick`: its records read as this code stamped them where it did
    (record_file.py: `xtalk list`, without pydantic), else checked against their models."""

    def __init__(self, path: Path, quick: bool = False):
        self.path, self.quick = path, quick
        campaign = path / "campaign.json"
        self.info = (quick and checked_record(campaign)) or _records().load_campaign(campaign)
        self.manifests = ManifestChecker()  # manifests.verify: hash every file (xtalk show --verify)

    @classmethod
    def create(cls, out: Path, name: str, spec_text: str, spec_raw: dict, host: dict,
               planned_runs: list[str], **extra: Any) -> "CampaignStore":
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
        write_atomic(path / "spec.toml", spec_text)
        record = {"schema_version": SCHEMA_VERSION, "name": name, "id": path.name, "created_at": now_iso(),
                  "xtalk_version": __version__, "spec_hash": spec_hash(spec_text), "spec": spec_raw,
                  "host": host, "planned_runs": planned_runs, **extra}
        save_campaign_record(path, record)
        return cls(path)

    @classmethod
    def latest(cls, out: Path, name: str) -> "CampaignStore | None":
        candidates = sorted((p for p in out.glob(f"{name}-*") if (p / "campaign.json").exists()
                             and named(p.name, name)), key=lambda p: started(p.name))
        return cls(candidates[-1]) if candidates else None

    def save_info(self, info: dict, spec_text: str) -> None:
        """Replace campaign.json (and spec.toml, the spec it holds): an import that adds
        configurations to the campaign."""
        write_atomic(self.path / "spec.toml", spec_text)
        save_campaign_record(self.path, dict(info, spec_hash=spec_hash(spec_text)))
        self.info = _records().load_campaign(self.path / "campaign.json")

    def update_info(self, **fields: Any) -> None:
        """Replace these fields of campaign.json (what a running campaign decided: a target
        restarted or set aside); spec.toml stays as it is."""
        save_campaign_record(self.path, dict(self.info, **fields))
        self.info = _records().load_campaign(self.path / "campaign.json")

    def add_target_decisions(self, target: str, decisions: list[dict]) -> None:
        """Append what a backend decided about `target` (a dom0 that stopped answering:
        restarted, set aside) to campaign.json `targets`."""
        targets = dict(self.info.get("targets") or {})
        self.update_info(targets=dict(targets, **{target: list(targets.get(target) or []) + decisions}))

    def run_dir(self, run_id: str) -> Path:
        return self.path / "runs" / run_id

    def index(self) -> RunIndex:
        """Every attempt of every run, read and checked; the unreadable ones as damaged."""
        runs_dir = self.path / "runs"
        dirs = sorted(p for p in runs_dir.iterdir() if p.is_dir()) if runs_dir.is_dir() else []
        earlier = Counter(m["run_id"] for d in dirs if (m := ATTEMPT_DIR.fullmatch(d.name)))
        stored, damaged = [], self._campaign_files()
        for d in dirs:
            m = ATTEMPT_DIR.fullmatch(d.name)
            run_id, attempt = (m["run_id"], int(m["attempt"])) if m else (d.name, earlier[d.name] + 1)
            checked = checked_record(d / "meta.json") if self.quick else None
            meta = None
            try:
                meta = checked or _records().load_run(d / "meta.json", attempt, self.info["schema_version"])
                if meta["run_id"] != run_id:
                    raise RecordError(d / "meta.json", f"run_id {meta['run_id']!r} is not its directory's")
                if meta["attempt"] != attempt:  # e.g. a copy of the run's directory as an earlier attempt
                    raise RecordError(d / "meta.json", f"attempt {meta['attempt']} of {run_id!r}, where its directory "
                                                       f"holds attempt {attempt}", label="damaged")
                if meta.get("files") and (wrong := self.manifests.problem(d, meta["files"])):
                    raise RecordError(*wrong, label="damaged")
                if meta["status"] != "running" and "samples.parquet" not in (meta.get("files") or {}):
                    from .samples_file import check_samples  # a run without a manifest (module docstring)
                    check_samples(d / "samples.parquet")
                if not (checked and "events.jsonl" in (meta.get("files") or {})):  # else checked with meta.json
                    _records().read_events(d / "events.jsonl")
            except RecordError as err:
                damaged.append(DamagedRun(d, err, meta or err.record))
                continue
            stored.append(StoredRun(d, meta, final=m is None))
        damaged += self._missing(dirs)
        order = {rid: i for i, rid in enumerate(self.info.get("planned_runs", []))}
        stored.sort(key=lambda r: (order.get(r.meta["run_id"], len(order)), r.meta["run_id"], r.final,
                                   r.meta["attempt"]))
        return RunIndex(stored, damaged)

    def _note_started(self, meta: dict) -> None:
        """Append the attempt to the ledger (O_APPEND: one write, whole, per line)."""
        line = json.dumps({k: meta.get(k) for k in ("run_id", "attempt", "config_id", "config")}, default=str)
        fd = os.open(self.path / LEDGER, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)

    def _campaign_files(self) -> list[DamagedRun]:
        """spec.toml, when it is not the spec campaign.json hashed, as damaged (the campaign's
        own file: no run is left out for it). From format 9 on: an earlier import --append
        left campaign.json's spec_hash that of the campaign's first spec."""
        path = self.path / "spec.toml"
        if self.info["schema_version"] < CAMPAIGN_HASHED_SINCE:  # no spec_hash to check spec.toml by
            return []
        try:
            text = read_regular(path).decode(errors="replace")
        except FileNotFoundError:
            return []
        except OSError as err:
            return [DamagedRun(path, RecordError(path, err.strerror or str(err)), None)]
        if spec_hash(text) == self.info.get("spec_hash"):
            return []
        return [DamagedRun(path, RecordError(path, f"content changed: its hash is {spec_hash(text)[:12]}…, campaign.json "
                                                   f"says {str(self.info.get('spec_hash'))[:12]}…", label="damaged"), None)]

    def _missing(self, dirs: list[Path]) -> list[DamagedRun]:
        """The runs the ledger says were started whose directory is gone (their last
        attempt noted), and the ledger itself where a line other than a torn last one (a
        kill midway through its write) is no entry."""
        path = self.path / LEDGER
        try:
            with open_regular(path) as f:
                data = f.read(LEDGER_LIMIT)
        except FileNotFoundError:  # none yet, or a campaign older than the ledger
            return []
        except OSError as err:
            return [DamagedRun(path, RecordError(path, err.strerror or str(err)), None)]
        last: dict[str, dict] = {}
        garbled = []
        lines = data.split(b"\n")
        for i, line in enumerate(lines[:-1], 1):  # the last, without its newline: torn
            try:
                entry = json.loads(line)
            except ValueError:
                entry = None
            if isinstance(entry, dict) and isinstance(entry.get("run_id"), str):
                last[entry["run_id"]] = entry
            else:
                garbled.append(i)
        here = {d.name for d in dirs}
        damaged = [DamagedRun(self.run_dir(rid), RecordError(
                       self.run_dir(rid), f"its directory is gone (runs.ledger: attempt {entry.get('attempt')} was "
                                          "started)", label="missing"), entry)
                   for rid, entry in last.items() if rid not in here]
        if garbled:
            more = f" and {len(garbled) - 1} more" if len(garbled) > 1 else ""
            damaged.append(DamagedRun(path, RecordError(path, f"line {garbled[0]}{more}: no ledger entry (a JSON object "
                                                              "with a run_id)"), None))
        return damaged

    def runs(self) -> list[dict]:
        """The last attempt of every run whose files can be read, in plan order."""
        return self.index().final()

    def completed_run_ids(self) -> set[str]:
        return {m["run_id"] for m in self.runs() if m.get("status") in COMPLETED}

    def recover_interrupted(self, console_facts: Callable[[Path, dict], dict]) -> list[str]:
        """Mark runs left 'running' by a dead xtalk as interrupted, keeping their samples;
        `console_facts(run dir, record)`: the fields its console log adds (parsers/console_log.py)."""
        from .finalize import finalize_run
        recovered = []
        for meta in self.runs():

            if meta.get("status") == "running":
                meta = dict(meta, status="interrupted", reason="xtalk stopped before the run ended",
                            ended_at=now_iso())
                path = self.run_dir(meta["run_id"])
                meta.update(console_facts(path, meta))
                meta.update(finalize_run(path, meta))
                save_run_record(path, dict(meta, files=manifest(path)))
                recovered.append(meta["run_id"])
        return recovered

    def next_attempt(self, run_id: str) -> int:
        """The number a run's next attempt gets (1 for its first)."""
        path = self.run_dir(run_id)
        earlier = 1
        while path.with_name(f"{path.name}.attempt{earlier}").exists():
            earlier += 1
        return earlier + path.exists()

    def _next_attempt(self, run_id: str) -> tuple[Path, int]:
        """Where a run's next attempt goes, and its number; a previous attempt (resume) is
        moved next to it and kept."""
        path, attempt = self.run_dir(run_id), self.next_attempt(run_id)
        if path.exists():
            path.rename(path.with_name(f"{path.name}.attempt{attempt - 1}"))
        return path, attempt

    def start_run(self, meta: dict) -> RunWriter:
        path, attempt = self._next_attempt(meta["run_id"])
        writer = RunWriter(path, dict(meta, attempt=attempt))
        self._note_started(writer.meta)
        return writer

    def adopt_run(self, run_id: str, source: Path, **fields: Any) -> dict:
        """Take a run stored elsewhere (a fleet's worker sent it, numbered as next_attempt
        said) as this run's next attempt, its meta.json completed with `fields`."""
        meta = _records().load_run(source / "meta.json", 1)
        path, attempt = self._next_attempt(run_id)
        if (meta["run_id"], meta["attempt"]) != (run_id, attempt):
            raise RecordError(source / "meta.json", f"attempt {meta['attempt']} of {meta['run_id']!r} is not "
                                                    f"attempt {attempt} of {run_id!r}")
        source.rename(path)
        meta.update(fields)
        save_run_record(path, meta)
        self._note_started(meta)
        return meta


class BoardStore(CampaignStore):
    """One board's runs of a per-board fleet campaign (`CAMPAIGN@PLACE`), without the board
    dimension in their configurations: two boards compare like two campaigns."""

    def __init__(self, path: Path, board: str):
        super().__init__(path)
        self.board = board
        self.info = dict(self.info, name=f"{self.info['name']}@{board}", id=f"{self.info['id']}@{board}")

    def boards(self) -> list[str]:
        return sorted({b for r in super().index().runs if (b := (r.meta.get("config") or {}).get("board"))})

    def index(self) -> RunIndex:
        full = super().index()

        def here(meta: dict | None) -> bool:
            return ((meta or {}).get("config") or {}).get("board") == self.board
        runs = [StoredRun(r.dir, dict(r.meta, config={k: v for k, v in r.meta["config"].items() if k != "board"}),
                          r.final) for r in full.runs if here(r.meta)]
        return RunIndex(runs, [d for d in full.damaged if here(d.meta)])


def named(directory: str, name: str) -> bool:
    """Whether a campaign directory's name is that of a campaign called `name`."""
    return re.fullmatch(rf"{re.escape(name)}-\d{{8}}-\d{{6}}(\.\d+)?", directory) is not None


def started(directory: str) -> tuple[str, int, str]:
    """A sort key that puts campaign directories in the order they were started: their
    NAME-YYYYmmdd-HHMMSS[.N] stamp (a directory without one first, by name)."""
    stamp = re.search(r"-(\d{8}-\d{6})(?:\.(\d+))?$", directory)
    return (stamp[1], int(stamp[2] or 1), directory) if stamp else ("", 0, directory)


def catalog(out: Path, quick: bool = False) -> tuple[list[CampaignStore], list[RecordError]]:
    """The campaigns in `out` (`quick`: CampaignStore), and the directories whose
    campaign.json cannot be read."""
    if not out.is_dir():
        return [], []
    stores, damaged = [], []
    for p in sorted(out.iterdir()):
        if (p / "campaign.json").exists():
            try:
                stores.append(CampaignStore(p, quick))
            except RecordError as err:
                damaged.append(err)
    return stores, damaged


def list_campaigns(out: Path) -> list[CampaignStore]:
    return catalog(out)[0]


def _records():
    """records.py: the models (pydantic), imported where a record is checked against them."""
    from . import records
    return records
