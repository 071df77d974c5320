"""The design check: what a campaign's runs can answer, told before any of them runs
(`xtalk spec check`, `xtalk run --dry-run`; docs/spec.md, "Design check").

Per configuration, as the analysis will judge it (analysis/verdict.py): the reference
(its baseline configuration's runs, or, where its timeline switches a stressor on and
off, its own off-windows: analysis/paired.py), the units of evidence (runs against runs,
or on/off cycles), the test the analysis gives them (inference.two_sample_test and
one_sample_test: the exact test where its smallest p is below alpha, else the t-test)
and whether a verdict at alpha is possible at all. A design decides when the exact test
can reach alpha, or when the t-test has at least MIN_DF degrees of freedom; with fewer
(1 run against 1, 2 against 2, 3 cycles) every verdict is "inconclusive" by
construction: an error, naming the field and the numbers that fix it, unless the spec
says it is meant (`[run] pilot = true`).
The change it detects (80 % power) is given in standard deviations of one unit's value:
the noise of a unit is a fact of the host, not of the spec (calibrate measures it).
Wall time per run: the backend's boot (its class's boot_s, a guess, or what a stored campaign of
the spec took beyond duration_s: noise.py), the start gap, duration_s and what a
measurer runs past it (timer_latency's sustained-rate search, `sustain`);
a measurer that may run past duration_s + grace_s is an error (the run would be
declared hung).
Caveat: MIN_DF is a rule of this check, not of the analysis, which runs the t-test on
any 2 units a side.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..analysis import power
from ..analysis import windows
from ..analysis.gates import baseline_dim, baseline_of
from ..backends.base import Backend
from ..errors import Problem
from ..plugins import backend_class
from ..spec.plan import RunPlan, timeline_of
from ..spec import catalogue
from ..spec.locate import problem_at
from ..spec.model import Campaign, Paired
from .noise import known_noise, newest_measured, overhead_s

MIN_DF = 3
TEARDOWN_S = 0.5


@dataclass(frozen=True)
class Row:
    """The design of one configuration."""

    config_id: str
    reference: str          # what it is judged against, in words
    design: str             # "reference", "runs", "windows" or "none"
    runs: int
    units: tuple[int, int]  # (its units, the reference's): runs, or cycles twice
    unit_word: str          # runs | windows (on/off windows)
    test: str               # the test the analysis will run, or why none
    exact_min_p: float      # the smallest p of the exact test
    decides: bool
    detects_sd: float | None  # the change detected with 80 % power, in sd of one unit (analysis scale)
    config: dict = field(default_factory=dict)  # its dimension values


@dataclass
class Design:
    alpha: float
    pilot: bool
    rows: list[Row]
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    run_s: dict[str, float] = field(default_factory=dict)   # config_id -> seconds a run takes (estimate)
    total_s: float = 0.0
    noise: list = field(default_factory=list)  # noise.Noise per metric, where a stored campaign measured it
    timed_by: str | None = None  # the stored campaign whose runs' time beyond duration_s the estimate uses
    free_dim: str = "placement"  # the dimension the reference differs in

    def detected(self, noise) -> list[Row]:
        """The judged configurations of the same unit that measure what `noise` was measured
        on: the same values on every dimension but the reference's (as baseline_of matches)."""
        where = {"noise": noise.config}
        return [r for r in self.rows if r.unit_word == noise.unit_word and r.detects_sd is not None
                and r.design != "reference"
                and baseline_of(r.config, where, self.free_dim, str(noise.config.get(self.free_dim))) == "noise"]


def events_of(timeline) -> list[dict]:
    """Timeline events as a run executes them on time (the analysis's events)."""
    return [{"t_s": e.at_s, "action": e.action, "target": e.target} for e in timeline]


def cycles_in(timeline, duration_s: float, settle_s: float | None = None) -> tuple[int, int]:
    """(on/off cycles, off/off contrasts) a run with this timeline gives (analysis/windows.py)."""
    wins = windows.windows(events_of(timeline), duration_s, settle_s)
    cycles, aa = windows.contrasts([(0.0, on) for *_, on in wins])
    return len(cycles), len(aa)


def switches(run: RunPlan) -> bool:
    return windows.has_windows({run.run_id: events_of(run.timeline)}, [run.run_id])


def exact_test(n: int, ref: int | None = None) -> tuple[float, str]:
    """(smallest p, name) of the exact test of n units against ref (None: n paired differences)."""
    return power.min_p(n, ref), "exact sign-flip test" if ref is None else "exact permutation test"


def judged(n: int, ref: int | None, alpha: float) -> tuple[str, float, bool]:
    """(test, exact smallest p, decides?) of n units against ref (None: paired), as
    inference.two_sample_test / one_sample_test choose."""
    smallest, name = exact_test(n, ref)
    if smallest < alpha:
        return name, smallest, True
    df = n - 1 if ref is None else (n + ref - 2 if n >= 2 and ref >= 2 else 0)
    t_name = "one-sample t-test" if ref is None else "Welch's t-test"
    if df >= MIN_DF:
        return f"{t_name}, {df} df (the {name} cannot reach p < {alpha:g})", smallest, True
    if df >= 1:
        return f"{t_name}, {df} df: too few (it needs {MIN_DF})", smallest, False
    return "no test: fewer than 2 units a side", smallest, False


def runs_detect(na: int, nb: int, alpha: float) -> float | None:
    """The change na runs against nb detect, in sd of a run (inference.floor_and_mde)."""
    if na < 1 or nb < 2:
        return None
    return float(power.detectable(1.0, nb - 1, alpha)) * math.sqrt(1 / na + 1 / nb)


def cycles_detect(n: int, aa: int, alpha: float) -> float | None:
    """The change n cycles detect, in sd of a cycle's difference (inference.paired_floor)."""
    ref = aa if aa >= 2 else n
    if n < 1 or ref < 2:
        return None
    return float(power.detectable(1.0, ref - 1, alpha)) / math.sqrt(n)


def rows_of(spec: Campaign, runs: list[RunPlan], alpha: float) -> list[Row]:
    measured = [r for r in runs if not r.warmup]
    configs = {r.config_id: r.config for r in measured}
    dim, value = baseline_dim(spec.model_dump())
    out = []
    for cid, config in configs.items():
        mine = [r for r in measured if r.config_id == cid]
        base = baseline_of(config, configs, dim, value)
        if switches(mine[0]):
            settle = mine[0].spec.paired.settle_s if mine[0].spec.paired else None
            per_run = [cycles_in(r.timeline, r.spec.run.duration_s, settle) for r in mine]
            n, aa = sum(c for c, _ in per_run), sum(a for _, a in per_run)
            test, smallest, decides = judged(n, None, alpha)
            why = f"the matrix has no {dim}={value}" if base is None else f"not {base}: the timeline switches a stressor"
            out.append(Row(cid, f"its own off-windows ({why})", "windows", len(mine), (n, n), "windows", test,
                           smallest, decides, cycles_detect(n, aa, alpha)))
        elif base == cid:
            out.append(Row(cid, "(the reference)", "reference", len(mine), (len(mine), len(mine)), "runs", "-",
                           1.0, True, None))
        elif base is None:
            out.append(Row(cid, f"nothing: no {dim}={value} configuration with its other values, and no timeline",
                           "none", len(mine), (len(mine), 0), "runs", "none", 1.0, False, None))
        else:
            nb = sum(r.config_id == base for r in measured)
            test, smallest, decides = judged(len(mine), nb, alpha)
            out.append(Row(cid, f"{base}'s runs", "runs", len(mine), (len(mine), nb), "runs", test, smallest,
                           decides, runs_detect(len(mine), nb, alpha)))
    return [replace(r, config=configs[r.config_id]) for r in out]


def paired_cycles(spec: Campaign, duration_s: float) -> int:
    """On/off cycles one run of duration_s gives with [paired] at its defaults."""
    trial = spec.model_copy(update={"paired": Paired(), "timeline": [],
                                    "run": spec.run.model_copy(update={"duration_s": duration_s})})
    return cycles_in(timeline_of(trial), duration_s)[0]


def _reps_text(spec: Campaign, raw: dict) -> str:
    given = "repetitions" in (raw.get("run") or {})
    n = spec.run.repetitions
    return f"{n} run{'s' if n > 1 else ''} per configuration" + ("" if given else " (repetitions not set: the "
                                                                                 "default is 1)")


def _runs_fix(rows: list[Row], spec: Campaign, raw: dict, alpha: float) -> str:
    exact = power.min_units(alpha)
    t_runs = next(k for k in range(2, exact + 1) if 2 * k - 2 >= MIN_DF)
    row = rows[0]
    return (f"{_names(rows)}: {_reps_text(spec, raw)}, {row.units[0]} against {row.units[1]} of the reference; "
            f"{row.test}; the {exact_test(*row.units)[1]}'s smallest p is {row.exact_min_p:.2g}: no verdict at "
            f"alpha {alpha:g} is possible. Fix: use repetitions = {exact} ({exact} against {exact}: the exact "
            f"permutation test reaches p < {alpha:g}), or at least {t_runs} (Welch's t-test, which assumes "
            "normal run values)")


def _windows_fix(rows: list[Row], spec: Campaign, raw: dict, alpha: float) -> str:
    exact, t_cycles = power.min_units(alpha, paired=True), MIN_DF + 1
    row = rows[0]
    reps = spec.run.repetitions
    per_run = row.units[0] // max(1, row.runs)
    text = (f"{_names(rows)}: {_reps_text(spec, raw)} of {per_run} on/off window{'s' if per_run != 1 else ''} "
            f"each: {row.units[0]} windows; {row.test}; the exact sign-flip test's smallest p is "
            f"{row.exact_min_p:.2g}: no verdict at alpha {alpha:g} is possible. Fix: ")
    if per_run:
        text += (f"use repetitions = {math.ceil(exact / per_run)} ({per_run * math.ceil(exact / per_run)} windows: "
                 f"the exact sign-flip test reaches p < {alpha:g}; {math.ceil(t_cycles / per_run)} would do for the "
                 "one-sample t-test, which assumes normal differences), or ")
    want = math.ceil(exact / reps)
    now = spec.run.duration_s
    duration = now if paired_cycles(spec, now) >= want else \
        next(d for d in range(3, 3 + 4 * exact, 2) if paired_cycles(spec, d) >= want)
    got = paired_cycles(spec, duration)
    instead = "replace the [[timeline]] events with " if spec.timeline else "use "
    length = f"at the same run.duration_s = {now:g}" if duration == now else f"and run.duration_s = {duration}"
    return text + (f"switch the stressors on and off inside each run: {instead}[paired] (off_s = 1, on_s = 1) "
                   f"{length} ({got} windows a run, {got * reps} in all)")


def _names(rows: list[Row]) -> str:
    return ("configuration " if len(rows) == 1 else "configurations ") + ", ".join(r.config_id for r in rows)


def design_problems(rows: list[Row], spec: Campaign, raw: dict, text: str, alpha: float) -> list[Problem]:
    """One problem per kind of design that cannot decide, naming the field to change."""
    failing = [r for r in rows if not r.decides]
    out = []
    for design, fix, loc in (("runs", _runs_fix, ("run", "repetitions")),
                             ("windows", _windows_fix, ("run", "repetitions"))):
        mine = [r for r in failing if r.design == design]
        if mine:
            out.append(problem_at(text, loc, fix(mine, spec, raw, alpha) + "; or, for a pilot, [run] pilot = true"))
    lone = [r for r in failing if r.design == "none"]
    if lone:
        dim = baseline_dim(spec.model_dump())[0]
        loc = ("matrix", "placement") if dim == "placement" else ("analysis", "baseline")
        out.append(problem_at(text, loc, (
            f"{_names(lone)} has nothing to be judged against: {lone[0].reference.split(': ', 1)[1]}. Fix: add "
            "\"solo\" to matrix.placement, or [paired] to switch the stressors on and off inside each run; "
            "or, for a pilot, [run] pilot = true")))
    return out


def overrun_s(run: RunPlan) -> tuple[float, float, str] | None:
    """(least, most seconds, what) the measurer runs past duration_s, or None."""
    m = run.measurer
    if m.bench != "timer_latency" or m.foreign:
        return None
    bench = catalogue.load().bench("timer_latency", tuple(catalogue.load().suites))
    p = {k: v.default for k, v in bench.params.items()} | {k: str(v) for k, v in m.params.items()}
    if p.get("sustain", "0").lower() not in ("1", "true"):
        return None
    count, factor = float(p["sustain_count"]), float(p["sustain_factor"])
    least = count * float(p["sustain_start_us"]) * 1e-6 / (1 - factor)
    most = count * float(p["sustain_max_us"]) * 1e-6 / (1 - factor)
    return least, most, "timer_latency's sustained-rate search (sustain = true)"


def run_seconds(run: RunPlan, measured_extra_s: float | None = None) -> float:
    """An estimate of one run's wall time: boot, start gap, duration, overrun, teardown;
    `measured_extra_s`: what stored runs took beyond duration_s, in place of the guesses."""
    s = run.spec.run
    gap = s.start_gap_s if run.stressors and run.start_order == "stressor-first" else 0.0
    over = overrun_s(run)
    middle = (over[0] + over[1]) / 2 if over else 0.0
    if measured_extra_s is not None:
        return s.duration_s + middle + measured_extra_s
    boot_s = (backend_class(run.backend) or Backend).boot_s
    return boot_s + gap + s.duration_s + middle + TEARDOWN_S


def overrun_problems(runs: list[RunPlan], text: str) -> tuple[list[Problem], list[str]]:
    """A measurer that runs past duration_s: a note with its cost, an error where it may
    outlast duration_s + grace_s (the run would be declared hung)."""
    problems, notes = {}, {}
    for r in runs:
        over = overrun_s(r)
        if over is None:
            continue
        least, most, what = over
        s = r.spec.run
        notes[what] = (f"{what} runs after the measured window, past duration_s: {least:.3g} s (no interrupt "
                       f"lost) to {most:.3g} s (losses up to sustain_max_us) a run")
        if most > s.grace_s:
            problems[what] = problem_at(text, ("run", "grace_s"), (
                f"{what} may run {most:.3g} s past duration_s, but a run is declared hung after duration_s + "
                f"grace_s = {s.duration_s + s.grace_s:g} s. Fix: grace_s = {math.ceil(round(most, 6))}, or leave the search "
                "off (sustain = false, the default)"))
    return list(problems.values()), list(notes.values())


def vcpu_notes(runs: list[RunPlan]) -> list[str]:
    """For a guest of several vCPUs: each vCPU's CPU, and which vCPUs share a CPU with a
    sibling (stacked) or with another guest; one note per such layout, with the
    configurations that have it (the first three named)."""
    layouts: dict[str, list[str]] = {}
    for run in runs:
        for guest in (g for g in run.guests if g.vcpus > 1):
            where = " ".join(f"vCPU{i}→{cpu}" for i, cpu in enumerate(guest.cpus))
            shared = [f"vCPUs {', '.join(str(i) for i, c in enumerate(guest.cpus) if c == cpu)} on CPU {cpu}"
                      for cpu in sorted(set(guest.cpus)) if guest.cpus.count(cpu) > 1]
            others = [f"vCPU{i} with {o.name} on CPU {cpu}" for i, cpu in enumerate(guest.cpus)
                      for o in run.guests if o is not guest and cpu in o.cpus]
            text = (f"{guest.name} {where}" + (f"; stacked: {'; '.join(shared)}" if shared else "")
                    + (f"; shared: {'; '.join(others)}" if others else ""))
            if run.config_id not in layouts.setdefault(text, []):
                layouts[text].append(run.config_id)
    return [f"{text} in {', '.join(ids[:3])}" + (f" and {len(ids) - 3} more configuration(s)" if len(ids) > 3 else "")
            for text, ids in layouts.items()]


def check_design(spec: Campaign, raw: dict, runs: list[RunPlan], text: str, out: Path | None = None) -> Design:
    """The design of a planned campaign, its problems (empty for a pilot's undecidable
    designs) and notes; with `out`, the noise its stored campaigns measured (noise.py)."""
    alpha = spec.analysis.alpha
    rows = rows_of(spec, runs, alpha)
    design = Design(alpha, spec.run.pilot, rows, free_dim=baseline_dim(spec.model_dump())[0])
    problems = design_problems(rows, spec, raw, text, alpha)
    if problems and spec.run.pilot:
        design.notes.append(f"a pilot ([run] pilot = true): {len([r for r in rows if not r.decides])} "
                            f"configuration(s) cannot reach a verdict at alpha {alpha:g}, as meant")
    else:
        design.problems += problems
    if "repetitions" not in (raw.get("run") or {}):
        design.notes.append(f"run.repetitions not set: {spec.run.repetitions} run per configuration (the default)")
    over_problems, over_notes = overrun_problems(runs, text)
    design.problems += over_problems
    design.notes += over_notes + vcpu_notes(runs)
    store = newest_measured(out, spec) if out is not None else None
    extra = overhead_s(store) if store is not None else None
    design.run_s = {r.config_id: run_seconds(r, extra) for r in runs}
    design.total_s = sum(run_seconds(r, extra) for r in runs)
    if store is not None:
        design.noise = known_noise(store)
        design.timed_by = store.info.get("id") if extra is not None else None
    return design
