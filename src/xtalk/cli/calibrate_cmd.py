"""`xtalk calibrate SPEC`: can this setup measure what I need? Injects known steals of two
lengths or more on the measured CPU and checks the probe recovers them, prints this
host's switch cost per preemption (the fit's intercept), runs an A/A pair of the spec's
measurer, prints the noise floor and the minimum detectable effect per minute of
measurement (xtalk/calibrate.py), and ends with one sentence: the effect this setup can
see with these runs, and whether the injected steals were recovered, or why not
(calibration/answer.py). Exit codes: EXIT_CODES."""
from __future__ import annotations

import json

from ..errors import EXIT_INFRASTRUCTURE, EXIT_OK, EXIT_USAGE, UsageError
from .common import GUESTS_STOPPED, add_command, add_json, add_study_inputs, console, load_spec

EXIT_CANNOT_MEASURE = 1
EXIT_CODES = {EXIT_OK: "this setup can measure: every injected steal was recovered and the A/A runs were not told "
                       "apart",
              EXIT_CANNOT_MEASURE: "it cannot (yet): a steal was missed or not separated from zero, the A/A "
                                   "runs differ, or this machine cannot answer (other work on the measured CPUs); "
                                   "the last sentence says why",
              EXIT_USAGE: "bad input (the spec, an option)",
              EXIT_INFRASTRUCTURE: "a calibration run failed (the message names it)"}
EXIT_TEXT = "exit codes:\n" + "\n".join(f"  {code}  {text}" for code, text in EXIT_CODES.items())


ORDER = 90  # its place in `xtalk --help`


def add_parser(sub) -> None:
    p = add_command(sub, "calibrate", "check that this setup recovers known injected steals; the switch cost "
                                      "per preemption, noise floor and minimum detectable effect per minute (A/A)", [
        "xtalk calibrate experiments/quickstart.toml",
        "xtalk calibrate experiments/quickstart.toml --steal-us 500 --runs 3 --json"],
        more="Ends with one sentence: the smallest effect this setup can see with these runs and whether the "
             "injected steals were recovered, or why not.")
    p.epilog += "\n\n" + EXIT_TEXT
    add_study_inputs(p, "its backend, CPUs and measurer are calibrated", "--set backend.accel=tcg (the number of runs "
                                                                        "is --runs)")
    p.add_argument("--steal-us", type=float, nargs="+", default=[300.0, 1000.0], metavar="US",
                   help="lengths of the injected steals, one or more (default 300 1000; with one length L a second "
                        "is added: 2L, or L/2 where 2L is over half the period); after the spec")
    p.add_argument("--period-us", type=float, default=10000.0, metavar="US",
                   help="one steal every ... µs (default 10000)")
    p.add_argument("--duration-s", type=float, default=2.0, metavar="S",
                   help="length of each run in seconds (default 2)")
    p.add_argument("--runs", type=int, default=5, metavar="N",
                   help="runs per configuration (default 5; the A/A gets twice)")
    add_json(p, "the result")
    p.set_defaults(handler=run, interrupted=GUESTS_STOPPED)


def _fmt(v) -> str:
    from ..analysis.wording import num
    return num(v) if isinstance(v, float) else str(v)


def _problems(args) -> list[str]:
    bad = [f"--{k.replace('_', '-')}: must be > 0" for k in ("period_us", "duration_s", "runs")
           if not getattr(args, k) > 0]
    for length in args.steal_us:
        if not 0 < length < args.period_us:
            bad.append(f"--steal-us: {length:g} must be > 0 and shorter than --period-us ({args.period_us:g})")
    if len(set(args.steal_us)) < len(args.steal_us):
        bad.append("--steal-us: give each length once")
    return bad


def _switch_cost(injected: dict, platform: dict) -> str:
    if injected["slope"] is None:
        return "switch cost: no fit (fewer than two lengths seen)"
    lo, hi = injected["switch_cost_ci_us"]
    slo, shi = injected["slope_ci"]
    where = f"recorded in {platform['file']}" if platform["file"] else f"not recorded: {platform['reason']}"
    lags = sorted(r["lag_us"] for r in injected["runs"] if r["steals"])
    lag = f"; the runs' time axes lag the host's by {lags[0]:.0f} to {lags[-1]:.0f} µs (taken out)" if lags else ""
    return (f"switch cost (intercept): {injected['switch_cost_us']:.1f} µs per preemption [{lo:.1f}, {hi:.1f}]; "
            f"slope {injected['slope']:.3f} [{slo:.3f}, {shi:.3f}] ({injected['steals_fitted']} steals; {where}){lag}")


def run(args) -> int:
    from ..calibration.calibrate import Settings, calibrate, steal_lengths  # heavy (scipy): only when this command runs
    from ..calibration.answer import sentence
    from ..running.derived import holding_cpus
    bad = _problems(args)
    if bad:
        raise UsageError(f"calibrate: {'; '.join(bad)}")
    spec, raw, _ = load_spec(args.spec, args.overrides)
    lengths = steal_lengths(args.steal_us, args.period_us)
    with holding_cpus(spec, args.out, args.wait):
        result = calibrate(spec, raw, args.out, Settings(lengths, args.period_us, args.duration_s, args.runs))
    result["answer"] = sentence(result)
    if args.json:
        print(json.dumps(result, indent=1, default=str))
    else:
        _print(result, lengths, args.period_us)
    return EXIT_OK if result["ok"] else EXIT_CANNOT_MEASURE


def _print(result: dict, lengths: tuple[float, ...], period_us: float) -> None:
    from rich.table import Table

    from ..analysis.wording import num
    from ..calibration.answer import TABLE_NOTE

    out = console(markup=False)
    out.print(f"columns: {TABLE_NOTE}", soft_wrap=True)
    table = Table(title=f"calibration on {result['backend']}: steals of {', '.join(f'{x:g}' for x in lengths)} µs "
                        f"every {period_us:g} µs")
    for col in ("check", "expected", "measured", "unit", "status"):
        table.add_column(col)
    for c in result["checks"]:
        table.add_row(c["name"], _fmt(c["expected"]), _fmt(c["measured"]), c.get("unit", ""), c["status"])
    out.print(table)
    out.print(_switch_cost(result["injected"], result["platform"]))
    aa = result["aa"]
    row = aa["assessment"]
    out.print(f"A/A ({aa['metric']} {aa['statistic']}, {row['units'][0]} vs {row['units'][1]} runs): "
              f"{row.get('sentence') or row['verdict']}")
    if result.get("noise_floor") is not None:
        out.print(f"noise floor ±{num(result['noise_floor'])} {result['unit']} with {row['units'][0]} runs per "
                  "configuration")
    per = aa["mde_per_minute"]
    for design in ("runs", "paired"):
        value = per[design]
        text = f"±{num(value)} {result['unit']}" if value is not None else "not measurable"
        out.print(f"minimum detectable effect with one minute of measurement per configuration ({design}): {text}")
    out.print(f"campaigns: {result['campaigns']['steal']}, {result['campaigns']['aa']}")
    out.print(result["answer"], soft_wrap=True)
