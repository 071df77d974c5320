"""The setup, stated: what ran where and how (backend and accelerator, hypervisor/QEMU
version, the guests with their benches, parameters and CPUs, run length, repetitions,
start order, timeline or paired design), and per run when each stressor actually ran
inside the measured window (its exposure, when the run recorded it) and the pressure it
achieved there (xtalk.running.pressure).
"""
from __future__ import annotations

from ..analysis import wording
from ..plugins import BACKENDS
from ..spec.plan import BACKEND_DIM
from ..running.pressure import words as pressure_words
from ..spec.run_caches import FLAG_X, differs
from ..spec.sizes import LEVELS, host_caches, human, label as size_label
from ..spec.model import resolve_backend
from .configs import config_sizes
from .tables import Table

LOW_EXPOSURE = 0.8  # a stressor active less than this share of its planned time is worth a warning


def _params(p: dict | None) -> str:
    """k=v, ...; a bench's own table as 'bench: k=v, ...'."""
    return ", ".join(f"{k}: {_params(v)}" if isinstance(v, dict) else f"{k}={v}" for k, v in (p or {}).items()) \
        or "defaults"


def _vcpus_text(workload: dict, cpus: list) -> str:
    """Where the measurer runs: "CPU 0", or its vCPUs' CPUs (spec keys vcpus, cpus,
    vcpu_placement; a matrix over vcpu_placement says so in its own row)."""
    n = workload.get("vcpus", 1)
    if n == 1:
        return f"CPU {cpus[0]}"
    if workload.get("cpus"):
        return f"{n} vCPUs, " + " ".join(f"vCPU{i}→{c}" for i, c in enumerate(workload["cpus"]))
    return f"{n} vCPUs from CPU {cpus[0]}, {workload.get('vcpu_placement', 'spread')}"


def setup_table(res: dict) -> Table:
    spec = res.get("spec") or {}
    host = res.get("host") or {}
    backend = dict(spec.get("backend") or {})
    cpus = spec.get("cpus") or [0, 1]
    run = spec.get("run") or {}
    matrix = spec.get("matrix") or {}
    kinds = [str(k) for k in matrix.get(BACKEND_DIM) or [backend.get("kind", "native")]]
    options = {k: resolve_backend(dict(backend, kind=k))[1] for k in kinds}
    accels = sorted({str(r.get("accel")) for r in res["runs"] if r.get("accel")})
    rows = [("backend" if len(kinds) == 1 else "backends",
             ", ".join(k + (f" ({_params(options[k])})" if options[k] else "") for k in kinds)),
            ("accelerator", ", ".join(accels) or "-")]
    rows += [row for k, cls in BACKENDS.by_name().items() if k in kinds for row in cls.version_rows(host.get(k) or {})]
    m = spec.get("measurer") or {}
    rows.append(("measurer", f"{m.get('bench')} ({_params(m.get('params'))}) on {_vcpus_text(m, cpus)}"
                 + (f", {m['iterations']} iterations" if m.get("iterations") else "")))
    others = ", ".join(map(str, cpus[1:])) or str(cpus[0])
    for s in spec.get("stressors") or []:
        where = "host process" if s.get("host") else "guest"
        rows.append((f"stressor {s['name']}", f"{s['bench']} ({_params(s.get('params'))}), {where}"
                     f"{', ' + str(s['instances']) + ' instances' if s.get('instances', 1) > 1 else ''}; "
                     f"same-core: CPU {cpus[0]}, other-core: CPU {others}"))
    rows += [("matrix", "; ".join(f"{k} = {', '.join(_values(res, k, v))}" for k, v in matrix.items()) or "-"),
             ("caches", _caches(res)),
             ("run", f"{run.get('duration_s', 10)} s measured, {run.get('repetitions', 1)} repetitions "
                     f"({run.get('order', 'interleaved')}), {run.get('warmup_runs', 0)} warm-up runs, "
                     f"scheduling {run.get('sched', 'other')}"),
             ("start order", ", ".join(map(str, matrix.get("start_order", ["measurer-first"])))
              + f", {run.get('start_gap_s', 0.5)} s apart")]
    paired = spec.get("paired")
    if paired:
        rows.append(("paired design", f"{', '.join(paired.get('stressors') or ['all stressors'])} off "
                     f"{paired.get('off_s', 1)} s / on {paired.get('on_s', 1)} s"))
    for e in spec.get("timeline") or []:
        rows.append(("timeline", f"{e['action']} {e['target']} at {e['at_s']} s"))
    rows.append(("statistics", f"alpha {res['analysis']['alpha']:g}, negligible change "
                 f"{res['analysis']['negligible_pct']:g} % / {res['analysis']['negligible_points']:g} points"))
    return Table("setup", "Setup", ["fact", "value"], [[k, str(v)] for k, v in rows if v not in (None, "")])


WHOSE = {"measured": "measured by xtalk host caches", "reported": "as this host reports them",
         "measurer": "as the measurer reported them", "host": "this host's"}


def _caches(res: dict) -> str | None:
    """The caches the runs resolved sizes such as llc/2 against (xtalk.spec.sizes), and whose;
    measured ones beside what the host reports, a level more than FLAG_X apart flagged."""
    caches = next((r["caches"] for r in res["runs"] if r.get("caches")), None)
    if not caches:
        return None
    text = (", ".join(f"{k.upper()} {human(caches[k])}" for k in LEVELS if caches.get(k))
            + f" ({WHOSE.get(caches.get('source'), caches.get('source'))})")
    reported = host_caches(res.get("host") or {})
    if caches.get("source") != "measured" or not reported:
        return text
    apart = [f"{k.upper()} measured {human(caches[k])}, reported {human(reported[k])}" for k in reported
             if caches.get(k) and differs(caches[k], reported[k])]
    return (text + "; reported: " + ", ".join(f"{k.upper()} {human(v)}" for k, v in reported.items())
            + (f"; more than {FLAG_X:g}x apart: " + "; ".join(apart) if apart else ""))


def _values(res: dict, dim: str, values: list) -> list[str]:
    """A dimension's values; a size with the bytes a run of the campaign resolved it to."""
    recorded = {str(sz["text"]): sz.get("bytes") for sizes in config_sizes(res).values()
                for path, sz in sizes.items() if path == dim}
    return [size_label(str(v), recorded[str(v)]) if str(v) in recorded else str(v) for v in values]


def exposure_table(res: dict) -> Table:
    t = Table("exposure", "Stressor exposure per run: the share of its planned time each stressor actually ran, "
              "and the pressure it achieved over the measured window",
              ["run", "stressor", "exposure", "CPU share", "state", "pressure achieved"],
              note=f"below {LOW_EXPOSURE:.0%} the stressor was idle for a noticeable share of the window; "
                   "runs from an xtalk that did not watch stressors say 'not recorded'; the pressure is the "
                   "stressor's work per pass x its passes / the window's seconds.")
    for r in res["runs"]:
        if r.get("placement") in (None, "solo") or r.get("warmup"):
            continue
        watch = r.get("stressors_watch")
        if not watch:
            t.rows.append([r["run_id"], ", ".join(s["name"] for s in r.get("stressors") or []) or "-",
                           "not recorded", "-", r.get("status") or "?", "-"])
            continue
        for name, w in watch.items():
            e, share = w.get("exposure"), w.get("cpu_share")
            state = "ok" if w.get("alive", True) else f"exited ({w.get('exit')})"
            if w.get("errors"):
                state += "; " + "; ".join(str(x.get("msg", x)) for x in w["errors"])
            t.rows.append([r["run_id"], name, wording.share(None if e is None else e * 100),
                           wording.share(None if share is None else share * 100), state,
                           pressure_words((r.get("pressure") or {}).get(name)).removeprefix("pressure ")])
    return t


def low_exposure(res: dict) -> list[str]:
    """Warnings for non-solo runs whose stressor was idle for a noticeable share."""
    out = []
    for r in res["runs"]:
        for name, w in (r.get("stressors_watch") or {}).items():
            e = w.get("exposure")
            if r.get("placement") not in (None, "solo") and e is not None and e < LOW_EXPOSURE:
                out.append(f"{r['run_id']}: stressor {name} ran only {e:.0%} of its planned time")
    return out
