"""What meta.json keeps of a run at its end (runner._store writes it): its guests' consoles,
ends, facts and rings, its backends' metadata, its noise, stressors and pressure, its sizes.
A backend that launches the next run's guests ahead (running/ahead.py) said what it says
of this run before that launch (RunState.said): the next run's prepare may change it.
"""
from __future__ import annotations

from ..backends.base import Backend
from ..host.metadata import host_facts
from ..parsers.console_log import console_facts
from ..results.store import RunWriter
from ..spec.plan import RunPlan
from ..spec.sizes import run_sizes

def record(state, backend: Backend, run: RunPlan, writer: RunWriter) -> dict:
    """What meta.json keeps of the run's guests and backends at its end (state: the run's
    runner.RunState, unnamed here: the runner imports this module)."""
    lost = sum(h.ring.lost for h in state.handles.values() if h.ring is not None)
    return dict(
        **console_facts(writer.path, writer.meta),
        guest_end=state.report.end, guest_meta=state.report.meta, guest_errors=state.report.errors,
        histograms={str(k): v for k, v in state.report.hist.items()},
        ring_lost_samples=lost, guests={n: h.facts for n, h in state.handles.items()},
        backend_metadata=said(state, backend), noise=state.noise_report(), stressors_watch=state.watch.summary(),
        pressure=state.pressure.summary(state.watch.said()),
        **run_sizes(run, state.report.meta, host_facts()),
        **({"host_backend_metadata": said(state, backend.host_backend())} if len(state.backends) > 1 else {}),
    )


def said(state, backend: Backend) -> dict:
    """What the backend says of the run: as it said it before the next run's guests were
    launched (a backend that launches ahead), else now (after its cleanup)."""
    return state.said[id(backend)] if id(backend) in state.said else backend.metadata()
