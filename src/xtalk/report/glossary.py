"""Every term the report uses, explained once: shown as the report's glossary and as
tooltips on the table headers (docs/report.md has the same list)."""
from __future__ import annotations

TERMS = {
    "baseline": "the reference configuration: placement solo (or the spec's [analysis] baseline) with the same "
                "values on every other dimension; in the paired design, the off-windows of the same runs",
    "run": "one boot of the measuring guest (a fresh VM or process): the unit of evidence",
    "window": "in the paired design, one on-window with the off-windows next to it: the unit of evidence (not a CPU "
              "clock cycle)",
    "change": "the configuration's value of the statistic against the baseline's, in its unit and in %; over "
              "runs the geometric mean of the runs' values (arithmetic for shares)",
    "95% interval": "the 95% confidence interval of the change, from the spread between runs (or on/off windows)",
    "p": "the p-value of the exact permutation test over runs (sign-flip test over on/off windows): how often a "
         "change this large comes from relabelling alone",
    "noise floor": "the change an A/A comparison (the same setup twice) stays within with probability "
                   "1 - alpha, measured from the baseline's own runs",
    "min. detectable": "the minimum detectable effect: the change this design finds with 80% probability",
    "negligible change": "a change too small to matter ([analysis] negligible_pct, default 5 %; "
                         "negligible_points, default 1 point, for shares)",
    "interference": "the change is significant (p < alpha), larger than the noise floor and larger than the "
                    "negligible change",
    "no interference": "the 95% interval of the change lies inside the negligible change",
    "inconclusive": "neither: too few runs, or a change between the noise floor and what the runs resolve; "
                    "the verdict says how many runs (or on/off windows) would decide it",
    "bare machine": "the native backend: the same bench programs as host processes, no hypervisor; the baseline "
                    "of the backend dimension",
    "overhead": "a guest configuration against the same configuration on the bare machine: the change is "
                "significant (p < alpha), larger than the native runs' noise floor and the negligible change",
    "no overhead": "the 95% interval of the guest's change against the bare machine lies inside the negligible "
                   "change",
    "magnitude": "the change in words: negligible, small (>= 5 %), medium (>= 10 %), large (>= 50 %); "
                 "for shares 1, 5 and 20 points",
    "stolen time": "for the hidden-latency probe: the sum of its gaps over the measured window, the share of "
                   "the CPU something else took",
    "long gaps": "gaps of the hidden-latency probe above the metric's deadline (default 100 µs), per second",
    "p99": "the value 99% of the samples stay at or below",
    "WCET": "the largest sample observed (the observed worst-case execution time)",
    "pWCET": "probabilistic WCET by extreme-value theory: the value one sample exceeds with probability p",
    "exposure": "the share of the time a stressor was meant to run in which it did: made progress on the CPU or "
                "slept by its own choice (not stopped, starved or gone)",
    "CPU share": "the CPU time a stressor consumed over the time it was meant to run (about 50 % for a hog "
                 "sharing the measurer's core)",
    "host noise": "CPU time the measured CPU spent on work outside the run (other processes, interrupts)",
    "paired design": "stressors switched off and on inside each run; on-windows compared with the off-windows "
                     "next to them",
    "warm-up": "samples at the start of a run excluded by run.warmup_s, or a detected start-up ramp",
}
