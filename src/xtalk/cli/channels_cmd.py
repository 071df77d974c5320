"""`xtalk channels SPEC`: the channel study (xtalk/channels/study.py). The spec's
measurer alone and next to each interference channel's default stressor, at each
placement; prints the "Interference channels" table and writes the campaign's report
(report/, with evidence.json). Exit 0 when it ran; a channel that cannot be exercised
here is listed with the reason, not an error."""
from __future__ import annotations

import json

from ..errors import EXIT_OK, UsageError
from .common import GUESTS_STOPPED, add_command, add_json, add_study_inputs, console, load_spec


ORDER = 100  # its place in `xtalk --help`


def add_parser(sub) -> None:
    p = add_command(sub, "channels", "characterise the interference channels: the measurer next to each "
                                     "channel's default stressor, the slowdown multiplier per channel and placement", [
        "xtalk channels experiments/channels.toml",
        "xtalk channels experiments/channels.toml --channel llc membw --placement same-core --runs 5 --json"])
    add_study_inputs(p, "its backend, CPUs, measurer (and measurer. dimensions) and placements are used; its "
                        "stressors are not", "--set measurer.bench=qsort")
    p.add_argument("--channel", nargs="+", default=[], metavar="NAME",
                   help="only these channels (default: all; docs/channels.md lists them)")
    p.add_argument("--placement", nargs="+", default=[], choices=("same-core", "other-core"),
                   help="where the stressors run next to the measurer, one or more (default: the spec's non-solo "
                        "placements, else both)")
    p.add_argument("--runs", type=int, default=5, metavar="N", help="runs per configuration (default 5: the fewest an "
                                                                    "exact test needs at alpha 0.01)")
    p.add_argument("--duration-s", type=float, default=None, metavar="S",
                   help="length of each run in seconds (default: the spec's run.duration_s)")
    p.add_argument("--no-reach", action="store_true", help="skip measuring each stressor alone first (the share "
                                                            "of its reach that the achieved pressure is)")
    add_json(p, "the channel rows")
    p.set_defaults(handler=run, interrupted=GUESTS_STOPPED)


def run(args) -> int:
    from ..interference.study import Settings, study  # heavy (scipy): only when this command runs
    from ..running.derived import holding_cpus
    from .study_output import print_and_report

    if args.runs < 2 or (args.duration_s is not None and not args.duration_s > 0):
        raise UsageError("channels: --runs must be at least 2 and --duration-s > 0")
    spec, raw, _ = load_spec(args.spec, args.overrides)
    duration = args.duration_s or spec.run.duration_s
    with holding_cpus(spec, args.out, args.wait):
        done = study(spec, raw, args.out, Settings(tuple(args.channel), tuple(args.placement), args.runs, duration,
                                                   not args.no_reach))
    rows = print_and_report(done["campaign"], console(markup=False), not args.json)
    if args.json:
        print(json.dumps(rows, indent=1, default=str))
    return EXIT_OK
