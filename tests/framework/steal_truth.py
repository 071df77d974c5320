"""What an injected steal really cost the probe in a paired campaign, from the raw parts
(test_verdicts.py's paired 3 % steal): the steals the injector logged (console/steal.log: the
truth of when it ran) inside the on-windows, and the length of the probe's gap covering each
(xtalk.calibration.steal.steal_gaps, the matching `xtalk calibrate` uses). One steal costs the
probe its length plus this machine's switches to the stealing thread and back (and the
timer's exits to the machine's own hypervisor on a VM): 60-80 µs on the hosts of
2026-11, 110 µs on a 2-CPU Firecracker VM of 2026-12-02 (median gap 410 µs for 300 µs
steals). The injector spins its full length from its actual wake-up, so a steal that lands
after an interruption of the host's adds to it: time is stolen twice.
Caveat: the median gap, not the mean: a steal whose gap merged with a longer interruption of
the host's is that interruption's time too.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tests.framework.cli import campaign_dir
from xtalk.analysis.effects import run_window_s
from xtalk.analysis.windows import windows
from xtalk.calibration.steal import steal_gaps


def steal_cost(out: Path, period_us: int) -> dict:
    """Over the runs of the configuration with that injector period: the steals a second of
    on-window, the median gap covering one (µs) and the share of the CPU they take (points)."""
    store = campaign_dir(out)
    count, on_s, gaps = 0, 0.0, []
    for meta_path in sorted(store.glob("runs/*/meta.json")):
        meta = json.loads(meta_path.read_text())
        if int(float((meta.get("config") or {}).get("stressors.steal.params.period_us", -1))) != period_us:
            continue
        window = run_window_s(meta, "hidden_latency")[0] or 0.0
        steals, covering, _ = steal_gaps(store, meta, window)
        events = [json.loads(line) for line in (meta_path.parent / "events.jsonl").read_text().splitlines()]
        middle = steals.mean(axis=1) if len(steals) else np.zeros(0)
        for a, b, on in windows([e for e in events if e.get("kind") == "timeline"], window):
            if on:
                inside = (middle >= a) & (middle < b)
                count, on_s = count + int(inside.sum()), on_s + (b - a)
                gaps += list(covering[inside & ~np.isnan(covering)])
    rate = count / on_s if on_s else 0.0
    median_us = float(np.median(gaps)) * 1e6 if gaps else float("nan")
    return {"per_s": round(rate, 1), "median_gap_us": round(median_us, 1), "seen": len(gaps), "steals": count,
            "points": rate * median_us * 1e-6}
