"""The cache sizes a campaign gives its guests (l1_bytes= ... shared_bytes=, set on each
RunPlan), and the sizes a spec asks for that no cache of this host and backend answers.

- *measured*: what `xtalk host caches` measured on this host and backend (results/
  platform.py), unless the spec's run.cache_sizes is "reported" or the machine could not
  answer for the levels then (the record's `voided`): l1, l2, l3 by level, llc the last
  level, shared the largest level shared between the CPUs it measured (only where the
  spec's first two CPUs are those, and the machine could answer for the sharing);
- *reported*: what this host reports (sysfs), for backends whose guests run on its
  CPUs: shared the largest level whose shared_cpu_list holds the spec's first two CPUs;
- none: the guest detects its own (a Xen guest's CPUID or CLIDR); `shared` unknown.
meta.json's `caches.source` says which (spec/sizes.run_sizes).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..errors import Problem
from ..host.arches import host_arch
from ..plugins import backend_class
from ..results.platform import caches_fact
from .plan import RunPlan
from .catalogue import cache_unit
from .sizes import bench_sizes, host_caches

UNITS = ("l1", "l2", "l3", "llc", "shared")
FLAG_X = 2.0  # a level whose measured and reported sizes differ more than this is flagged


def differs(measured: int, reported: int | None, apart: float = FLAG_X) -> bool:
    """Measured and reported sizes more than `apart` times apart (False where nothing was reported)."""
    return bool(reported) and not 1 / apart <= measured / reported <= apart


def cpu_list(text: str) -> set[int]:
    """sysfs's "0-3,8" as {0, 1, 2, 3, 8}."""
    out: set[int] = set()
    for part in filter(None, (text or "").split(",")):
        low, _, high = part.partition("-")
        out.update(range(int(low), int(high or low) + 1))
    return out


def reported_shared(host: dict, cpus: list[int]) -> int | None:
    """The largest level sysfs says the first two CPUs share (cpu0's caches only: None
    where the first CPU is another)."""
    if len(cpus) < 2 or cpus[0] != 0:
        return None
    shared = [c for c in host.get("caches", []) if c["type"] in ("Unified", "Data") and c["size_bytes"]
              and set(cpus[:2]) <= cpu_list(c.get("shared_cpus", ""))]
    return max(shared, key=lambda c: c["level"])["size_bytes"] if shared else None


def measured_caches(record: dict, cpus: list[int]) -> dict[str, int]:
    """The sizes of a measured hierarchy (results/records.CachesRecord); shared only where
    it was measured between the spec's first two CPUs."""
    levels = record["levels"]
    out = {f"l{lv['level']}": lv["size_bytes"] for lv in levels if lv["level"] <= 3}
    if levels:
        out["llc"] = levels[-1]["size_bytes"]
    shared = [lv for lv in levels if lv.get("shared_with_neighbour")]
    if shared and list(cpus[:2]) == list(record["cpus"]) and "sharing" not in (record.get("voided") or {}):
        out["shared"] = shared[-1]["size_bytes"]
    return out


def run_caches(record: dict | None, host: dict, cpus: list[int], wanted: str, local: bool) -> dict:
    """The caches a run's guests are given ({level: bytes}, with "source"; empty where
    the guest detects its own) and, under "why", why `shared` is missing. A record whose
    levels the machine could not answer for (its `voided`) is not used."""
    if record and "levels" in (record.get("voided") or {}):
        record = None
    if record and wanted == "measured":
        found = measured_caches(record, cpus)
        why = (f"xtalk host caches measured no level shared between CPUs {record['cpus'][0]} and "
               f"{record['cpus'][1]} ({record['measured_at'][:10]})" if list(cpus[:2]) == list(record["cpus"])
               else f"xtalk host caches measured sharing between CPUs {record['cpus'][0]} and {record['cpus'][1]}, "
                    f"not {', '.join(map(str, cpus[:2]))}: measure with this spec's CPUs")
        return found | {"source": "measured", "why": None if "shared" in found else why}
    if not local:
        return {"source": "", "why": "the guest's own cache registers say nothing of sharing: run xtalk host caches"}
    found = host_caches(host)
    shared = reported_shared(host, cpus)
    why = None if shared else (f"this host reports no cache level shared by CPUs {', '.join(map(str, cpus[:2]))}"
                               + ("" if record else " (xtalk host caches measures it)"))
    return found | ({"shared": shared} if shared else {}) | {"source": "reported", "why": why}


def unanswered(params: dict, caches: dict) -> str | None:
    """Why a size parameter of `params` names a level `caches` lacks, None when none does."""
    for text in params.values():
        unit = cache_unit(text)
        if unit and unit not in caches and caches.get("source"):
            return f"{text}: " + (caches["why"] if unit == "shared" else f"no {unit} level is known here")
    return None


def platform_name(kind: str, options: dict) -> str:
    """What a measured hierarchy is kept under beside the host's name: the backend kind,
    and the guests' architecture and accelerator where they are not the host's and auto
    (qemu-arm64-tcg: TCG's caches are the emulator's, not a KVM guest's)."""
    cls = backend_class(kind)
    arch = cls.guest_arch(options) if cls else None
    accel = options.get("accel")
    return "-".join([kind] + ([arch] if arch and arch != host_arch() else [])
                    + ([accel] if accel not in (None, "auto") else []))


def spec_caches(spec, out: Path, host: dict) -> dict:
    """run_caches for a spec's backend and CPUs."""
    kind, options = spec.backend.kind, spec.backend.options
    cls = backend_class(kind)
    return run_caches(caches_fact(out, host.get("hostname"), platform_name(kind, options)), host, spec.cpus,
                      spec.run.cache_sizes, bool(cls and cls.measures_local_cpus))


def given(caches: dict) -> tuple[tuple[str, int], ...]:
    """A RunPlan's `caches`: the levels with their bytes."""
    return tuple((k, int(v)) for k, v in caches.items() if k in UNITS)


def with_caches(runs: list[RunPlan], out: Path, host: dict) -> tuple[list[RunPlan], list[Problem]]:
    """The runs with the caches their guests get, and a problem for each size parameter
    that names a level those caches lack (the spec path, what was asked, why)."""
    found: dict[tuple, dict] = {}
    placed, problems = [], {}
    for run in runs:
        key = (platform_name(run.backend, run.spec.backend.options), tuple(run.spec.cpus[:2]), run.spec.run.cache_sizes)
        if key not in found:
            found[key] = spec_caches(run.spec, out, host)
        caches = found[key]
        placed.append(replace(run, caches=given(caches), caches_source=caches["source"]))
        for path, guest in [("measurer", run.measurer)] + [(f"stressors.{g.stressor}", g) for g in run.stressors]:
            if guest.foreign or not caches["source"]:
                continue
            for name, (text, nbytes) in bench_sizes(guest.bench, guest.params, dict(given(caches))).items():
                if nbytes is None and (why := unanswered({name: text}, caches)):
                    problems[f"{path}.params.{name}"] = why
    return placed, [Problem(path, text) for path, text in problems.items()]
