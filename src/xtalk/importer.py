"""`xtalk import`: console logs of earlier runs (a thesis's manual runs, a lab's CI)
turned into a campaign that `show`, `report` and `compare` read like a measured one.

One run per log, read by an output parser (xtalk.parsers), all with the configuration
given (`--config placement=same-core`). Several imports build one campaign's
configurations: the first creates NAME-<timestamp>, each later one with `--append`
adds its runs to the latest campaign NAME (its matrix grows by the values given).
Every log is read and parsed before anything is written: a missing, binary or
unrecognised log is an error naming the file, and nothing is stored. A run the disk does
not take whole (full) is stored as 'error' without its samples, or removed, and the import
stops saying which run, which file and why; the runs before it are kept.
Caveats: a log says nothing of the host, the hypervisor or the stressors; the campaign
states only what was given. Sample times exist only where the log prints them (Zephyr's
thread_metric); elsewhere t_s is empty and the time plots are left out.
"""
from __future__ import annotations

import hashlib
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import tomli_w

from . import parsers
from .controls import one_line
from .errors import InfrastructureError, Problem, SpecError, UsageError, did_you_mean
from .spec.plan import DEFAULTS, config_name
from .results.store import CampaignStore, RunWriter
from .files import read_bounded
from .plugins import PARSERS
from .spec.assignment import BadAssignment, parse_assignment
from .spec.model import NAME_PATTERN, PLACEMENTS, START_ORDERS

LOG_LIMIT = 1 << 30  # a console log larger than this is not a log
LINE_LIMIT = 1 << 20  # nor is a line longer than this (a 98 MB line took an estimated 3.6 GB to parse)
# control bytes a console does not print (tab, newlines, form feed and ESC it does);
# a log with more than 1 % of them is a binary file
CONTROL = bytes(b for b in [*range(32), 127] if b not in b"\t\n\r\x0c\x1b")
BACKEND = "imported"


@dataclass
class Request:
    name: str
    output: str
    logs: list[Path]
    out: Path
    sets: list[str] = field(default_factory=list)  # DIMENSION=VALUE
    options: dict = field(default_factory=dict)      # the parser's options
    bench: str | None = None
    append: bool = False


@dataclass
class Parsed:
    log: Path
    text: str
    parser: parsers.OutputParser


def _configuration(sets: list[str]) -> dict:
    config = {"placement": "solo", "start_order": DEFAULTS["start_order"]}
    problems = []
    for item in sets:
        try:
            dim, value = parse_assignment(item)
        except BadAssignment as why:
            problems.append(Problem(f"--config {one_line(item)}", f"{why}: use DIMENSION=VALUE, e.g. "
                                                                  "placement=same-core"))
            continue
        allowed = {"placement": PLACEMENTS, "start_order": START_ORDERS}.get(dim)
        if allowed and value not in allowed:
            problems.append(Problem(f"--config {dim}", f"{value!r} is not one of {', '.join(allowed)}"))
        config[dim] = value
    if problems:
        raise SpecError("xtalk import", problems)
    return config


def _check_parser(req: Request) -> str:
    """The bench label after checking the parser, its options and the bench."""
    known = parsers.registry()
    if req.output not in known:
        raise SpecError("xtalk import", [Problem("--output", PARSERS.unknown(req.output))])
    problems = [Problem("--parser " + ".".join(map(str, loc)), msg)
                for loc, msg in parsers.option_problems(req.output, req.options)]
    benches = known[req.output].benches
    bench = req.bench or (benches[0] if benches else req.output)
    if benches is not None and bench not in benches:
        problems.append(Problem("--bench", f"output {req.output!r} reports no bench {bench!r}"
                                + (did_you_mean(bench, benches) or f" (its benches: {', '.join(benches)})")))
    if not re.fullmatch(NAME_PATTERN, req.name):
        problems.append(Problem("NAME", f"{req.name!r}: letters, digits, '_', '.', '-' (not first)"))
    if problems:
        raise SpecError("xtalk import", problems)
    return bench


def _read(log: Path) -> str:
    data = read_bounded(log, LOG_LIMIT, "a console log", regular_only=True)
    if len(data) - len(data.translate(None, CONTROL)) > len(data) // 100:
        raise UsageError(f"{log}: a binary file, not a console log")
    line = long_line(data)
    if line:
        raise UsageError(f"{log}: line {line} is longer than {LINE_LIMIT >> 10} KiB: not a console log's line "
                         "(a parser would hold it whole)")
    return data.decode(errors="replace")


def long_line(data: bytes) -> int | None:
    """The number of the first line of `data` longer than LINE_LIMIT, None where none is
    (numpy over the newlines' offsets, in one pass)."""
    if len(data) <= LINE_LIMIT:
        return None
    ends = np.flatnonzero(np.frombuffer(data, np.uint8) == ord("\n"))
    lengths = np.diff(ends, prepend=-1, append=len(data)) - 1
    over = np.flatnonzero(lengths > LINE_LIMIT)
    return int(over[0]) + 1 if len(over) else None


def _parse_all(req: Request) -> list[Parsed]:
    if not req.logs:
        raise UsageError("give at least one console log")
    out = []
    for log in req.logs:
        text = _read(log)
        parser = parsers.parse_log(text, req.output, None, req.options)
        if parser.sample_count == 0 and not parser.errors:
            raise UsageError(f"{log}: the {req.output!r} parser found no measurement in it "
                             "(the wrong --output, or a log of another benchmark?)")
        out.append(Parsed(log, text, parser))
    return out


def _campaign(req: Request, bench: str, config: dict) -> CampaignStore:
    spec = {"name": req.name, "description": f"imported from console logs by xtalk import (output {req.output})",
            "backend": {"kind": BACKEND},
            "measurer": {"bench": bench, "output": req.output, "parser": req.options}}
    if not req.append:
        return CampaignStore.create(req.out, req.name, tomli_w.dumps(spec), spec, {}, [])
    store = CampaignStore.latest(req.out, req.name)
    if store is None:
        raise UsageError(f"--append: no campaign {req.name!r} in {req.out} to add to (import once without --append)")
    measurer = store.info["spec"].get("measurer", {})
    if store.info["spec"].get("backend", {}).get("kind") != BACKEND or measurer.get("output") != req.output:
        raise UsageError(f"--append: {store.path} was not imported with --output {req.output}")
    return store


def _grow(store: CampaignStore, config: dict, run_ids: list[str]) -> None:
    """The campaign's matrix and planned runs, with this import's configuration and runs."""
    info = dict(store.info)
    spec = dict(info["spec"])
    matrix = {k: list(v) for k, v in spec.get("matrix", {}).items()}
    for dim, value in config.items():
        values = matrix.setdefault(dim, [])
        if value not in values:
            values.append(value)
    spec["matrix"] = matrix
    info.update(spec=spec, planned_runs=list(info.get("planned_runs", [])) + run_ids)
    store.save_info(info, tomli_w.dumps(spec))


def _store_run(store: CampaignStore, run_id: str, config_id: str, config: dict, bench: str,
               req: Request, item: Parsed) -> dict:
    parser = item.parser
    samples = parser.take_samples()
    timed = bool(len(samples)) and bool((samples["t"] != 0).any())  # times printed by the guest
    meta = {"run_id": run_id, "config_id": config_id, "config": config, "index": len(store.info["planned_runs"]),
            "placement": config["placement"], "start_order": config["start_order"], "campaign": req.name,
            "backend": BACKEND, "warmup": False, "warmup_s": 0.0,
            "measurer": {"bench": bench, "params": {}, "cpus": [], "output": req.output, "parser": req.options},
            "stressors": [], "timeline": [], "imported_from": str(item.log.resolve()),
            "log_sha256": hashlib.sha256(item.text.encode()).hexdigest()}
    writer = store.start_run(meta)
    try:
        writer.console("measurer", item.text.encode())
        writer.samples(samples)
        if timed:
            writer.clock(0, 0)
        status, reason = parser.outcome(0, reached_duration=True)
        return writer.finish(status, reason, metrics={str(k): v for k, v in parser.metrics.items()},
                             freq_hz=parser.freq_hz, guest_begin=parser.begin, guest_end=parser.end,
                             guest_meta=parser.meta, guest_errors=parser.errors, origin_host_ns=0 if timed else None,
                             begin_counter=0 if timed else None,
                             histograms={str(k): v for k, v in parser.hist.items()})
    except (OSError, InfrastructureError) as err:  # a full disk: nothing left looking alive
        raise _not_stored(writer, item.log, err) from None


def _not_stored(writer: RunWriter, log: Path, err: Exception) -> InfrastructureError:
    """The error for a run the store did not take whole: its partial samples dropped and the
    run stored as 'error' saying why, or its directory removed where even that fails."""
    why = f"{getattr(err, 'filename', None) or writer.path}: {err.strerror}" if isinstance(err, OSError) else str(err)
    run_id = writer.meta["run_id"]
    try:
        writer.cut_samples(0)
        writer.finish("error", f"not stored whole ({why}): its samples were dropped")
        left = f"run {run_id} is stored as 'error', without samples"
    except (OSError, InfrastructureError):
        shutil.rmtree(writer.path, ignore_errors=True)
        left = f"the partial run {run_id} was removed ({writer.path})"
    return InfrastructureError(f"import of {log} stopped: {why}; {left}; the runs imported before it are kept: "
                               f"free space, then import {log} and the logs after it again with --append")


def import_logs(req: Request) -> tuple[CampaignStore, list[dict]]:
    """Check everything, then store one run per log; (the campaign, each run's metadata)."""
    bench = _check_parser(req)
    config = _configuration(req.sets)
    parsed = _parse_all(req)
    store = _campaign(req, bench, config)
    dims = ["placement", *(d for d in config if d not in DEFAULTS)]
    config_id = config_name(config, dims + (["start_order"] if config["start_order"] != DEFAULTS["start_order"] else []))
    done = {m["run_id"] for m in store.runs()}
    run_ids, rep = [], 1
    for _ in parsed:
        while f"{config_id}-r{rep}" in done or f"{config_id}-r{rep}" in run_ids:
            rep += 1
        run_ids.append(f"{config_id}-r{rep}")
    _grow(store, config, run_ids)
    metas = [_store_run(store, run_id, config_id, config, bench, req, item) for run_id, item in zip(run_ids, parsed)]
    return store, metas
