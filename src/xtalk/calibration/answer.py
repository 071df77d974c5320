"""`xtalk calibrate`'s bottom line, from its result (calibrate.py): one sentence that says
the smallest effect this setup can see with the runs it was given and whether the
injected steals were recovered, and if not, why (the checks that were not, in the words
of their status, steal.py); and what its table's columns mean.

The effect is the A/A's minimum detectable effect (the analysis's formula, the same as
a report's "min. detectable"), in % of the spec's measurer's statistic, or in points for
shares; "can see" means: a change this large is called with 80 % power at the spec's
alpha. The exit code follows `ok` (every check passed, and the machine could answer): the
sentence is its reason, with the machine line's own words where it could not.
"""
from __future__ import annotations

from ..analysis.wording import num

TABLE_NOTE = ("expected: what was injected (the steals logged, a slope of 1, the share of the CPU the longest "
              "steal adds, the verdict interference; for the A/A, no difference); measured: what the probe and "
              "the analysis gave (a share with its 95 % interval); status: recovered = measured agrees with "
              "injected (within 5 %, or an interval that holds the injected share and excludes zero); not "
              "separated from zero = the interval holds the share but also no change; missed = it does not "
              "agree; no false alarm = the A/A runs of one setup were not told apart.")


def detectable(result: dict) -> str:
    """'this setup can see effects of ±12 % (qsort median) with 5 runs per configuration'."""
    aa = result["aa"]
    runs = (aa["assessment"].get("units") or [0])[0]
    what = f"{aa['metric']} {aa['statistic']}"
    if result.get("mde") is None:
        return (f"this setup's smallest detectable effect on {what} is not known: the A/A gave none "
                f"({aa['assessment'].get('reason') or aa['assessment']['verdict']})")
    return (f"this setup can see effects of ±{num(result['mde'])} {result['unit']} ({what}) with {runs} runs per "
            "configuration")


def _why(check: dict) -> str:
    """'steals seen (300 µs): missed (412 against 500 steals)'; 'the verdict of the 1000 µs
    steal was inconclusive (...; about 5 runs per side would decide it)'."""
    measured, expected = check["measured"], check["expected"]
    if check.get("reason"):
        return f"the {check['name']} was {check['reason']}"
    if not isinstance(expected, float):
        return f"{check['name']}: {check['status']} ({measured})"
    unit = f" {check['unit']}" if check.get("unit") else ""
    told = num(measured) if isinstance(measured, float) else measured
    return f"{check['name']}: {check['status']} ({told} against {num(expected)}{unit})"


def sentence(result: dict) -> str:
    """The bottom line (module docstring)."""
    missed = [c for c in result["checks"] if not c["ok"] and not c["name"].startswith("A/A")]
    alarms = [c for c in result["checks"] if not c["ok"] and c["name"].startswith("A/A")]
    steal = "the injected steals were recovered" if not missed else \
        "the injected steals were not recovered, because " + "; ".join(map(_why, missed))
    alarm = ("; but the A/A runs, all of one setup, were told apart (a false alarm: the runs of this setup "
             "differ more than its noise floor says)") if alarms else ""
    can = detectable(result)
    machine = result.get("machine") or {}
    cannot = f"; but this machine cannot answer for any of it ({machine['text']})" if machine.get("state") == \
        "cannot" else ""
    return f"{can[0].upper()}{can[1:]}; {steal}{alarm}{cannot}."
