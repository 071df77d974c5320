"""Statistical power of the paired design: the smallest slowdown it detects in 30 s of
measurement per configuration, on native and on qemu. Goal: 1 % (issue 11).

The slowdown is injected by the `steal` host stressor on the measurer's CPU (a
real-time host thread spinning SHARES x PERIOD_US every PERIOD_US, switched off and on
every second by [paired]); the measurer is qsort (a duration: its median per window).
Detected = the verdict is `interference` (with [analysis] negligible_pct = 0.2: the
default 5 % would rightly call smaller shifts negligible). Printed: each injected share's change and
verdict, and the smallest share detected with every larger one detected too. Caveat:
each wake-up of the injector also costs the measurer a preemption (tens of µs here), so
the real slowdown is a little larger than the nominal share: the 0 % row shows it.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.common import PAIRED_STEAL, backends, report

SHARES = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)   # % of the CPU; 0: the wake-ups alone
PERIOD_US = 20000  # a steal every 20 ms: each of qsort's ~15 ms iterations meets about one
SPEC = """
name = "paired-{backend}"
cpus = [0, 1]
[backend]
kind = "{backend}"
[run]
duration_s = 30
[measurer]
bench = "qsort"
{steal}
[analysis]
negligible_pct = 0.2  # what matters here: effects well below the 1 % goal
[matrix]
placement = ["same-core"]
"stressors.steal.params.steal_us" = [{steals}]
"""
ROOT = Path(__file__).resolve().parent.parent


def smallest_detected(backend: str, tmp: Path) -> float | None:
    steals = ", ".join(f"{share / 100 * PERIOD_US:g}" for share in SHARES)
    spec = tmp / f"{backend}.toml"
    spec.write_text(SPEC.format(backend=backend, steal=PAIRED_STEAL.format(period=PERIOD_US), steals=steals))
    out = tmp / backend
    subprocess.run([sys.executable, "-m", "xtalk.cli.main", "run", str(spec), "--out", str(out)], check=True,
                   capture_output=True)
    res = json.loads(subprocess.run([sys.executable, "-m", "xtalk.cli.main", "report", f"paired-{backend}",
                                     "--out", str(out), "--json", "--no-samples"], check=True,
                                    capture_output=True, text=True).stdout)
    found = {}
    for v in res["verdicts"]:
        share = float(v["config"]["stressors.steal.params.steal_us"]) / PERIOD_US * 100
        found[share] = v["verdict"] == "interference"
        print(f"  {backend}: {share:g} % injected: change {v.get('change_pct') or 0:+.2f} % "
              f"{v.get('ci95_pct')}, {v['verdict']}", flush=True)
    detected = [s for s in sorted(found) if s > 0 and all(found[t] for t in found if t >= s)]
    return detected[0] if detected else None


def main() -> int:
    subprocess.run(["make", "-s", "-C", str(ROOT), "native", "x86_64"], check=True)
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for backend in backends():
            smallest = smallest_detected(backend, Path(tmp))
            value = smallest if smallest is not None else 2 * max(SHARES)
            ok &= report(f"paired_smallest_detected_{backend}", value, 1.0, "% of the CPU")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
