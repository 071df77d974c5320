"""`xtalk search SPEC`: the worst neighbour for the spec's measurer at one placement
(xtalk/search/): Optuna trials over the stressors' tunable parameters, each trial fresh
runs; then a confirmation campaign of the measurer alone, next to the worst neighbour
found and next to each channel's default stressor. Prints the trials as they end, the
conclusion and the ratio found / best default with its interval, writes the
confirmation's report (plots of the search, evidence.json) and worst-neighbour.toml.
Ctrl-C stops it (exit 130); the same command resumes it. Several of it on one OUT share the
search (search/workers.py): the confirmation runs once, and a worker that finds it run
says so and shows that one. Exit 0 when it ran."""
from __future__ import annotations

import json
import time

from ..controls import one_line
from ..errors import EXIT_OK, UsageError
from .common import GUESTS_STOPPED, add_command, add_json, add_study_inputs, console, load_spec


ORDER = 110  # its place in `xtalk --help`


def add_parser(sub) -> None:
    p = add_command(sub, "search", "find the worst neighbour for the measurer: Optuna over the stressors' "
                                   "parameters, then a confirmation against each channel's default stressor", [
        "xtalk search experiments/search.toml --trials 20",
        "xtalk search experiments/search.toml --set measurer.bench=qsort --name search-qsort --channel llc membw"])
    add_study_inputs(p, "its backend, CPUs and measurer; its stressors are not used", "--set measurer.bench=qsort")
    p.add_argument("--name", help="the search's name (default: the spec's): the same name resumes it")
    p.add_argument("--placement", default="other-core", choices=("same-core", "other-core"),
                   help="where the stressor runs next to the measurer (default other-core)")
    p.add_argument("--channel", nargs="+", default=[], metavar="NAME",
                   help="search only stressors that load these channels (default: every channel)")
    p.add_argument("--stressor", nargs="+", default=[], metavar="BENCH",
                   help="search only these stressors (a host stressor such as steal only when named)")
    p.add_argument("--tune", action="append", default=[], metavar="BENCH.PARAM=RANGE",
                   help="override a search range: LOW..HIGH (sizes may be in cache units: l2..llc*4), a|b|c, "
                        "or one VALUE to fix it; repeatable")
    p.add_argument("--trials", type=int, default=20, metavar="N",
                   help="finished trials to reach, all workers together (default 20)")
    p.add_argument("--budget-min", type=float, default=None, metavar="MIN",
                   help="stop starting trials after this many minutes")
    p.add_argument("--runs", type=int, default=4, metavar="N",
                   help="runs per trial (default 4; the first half decides pruning)")
    p.add_argument("--confirm-runs", type=int, default=5, metavar="N",
                   help="runs per configuration of the confirmation (default 5)")
    p.add_argument("--duration-s", type=float, default=None, metavar="S",
                   help="length of each run in seconds (default: the spec's run.duration_s)")
    p.add_argument("--max-instances", type=int, default=1, metavar="N",
                   help="search the number of interferers up to this (default 1)")
    p.add_argument("--metric", help="the measurer's metric to make worse (default: its first)")
    p.add_argument("--seed", type=int, default=0, help="the sampler's seed (default 0)")
    add_json(p, "the outcome")
    p.set_defaults(handler=run, interrupted=GUESTS_STOPPED)


def _problems(args) -> list[str]:
    from ..spec.model import NAME_MAX_LENGTH, is_name  # pydantic: only when this command runs
    bad = [f"--{k.replace('_', '-')}: must be at least {low}" for k, low in
           (("trials", 1), ("runs", 1), ("confirm_runs", 2), ("max_instances", 1)) if getattr(args, k) < low]
    bad += [f"--{k.replace('_', '-')}: must be > 0" for k in ("budget_min", "duration_s")
            if getattr(args, k) is not None and not getattr(args, k) > 0]
    if args.name is not None and not is_name(args.name):  # it names a directory: out/search/NAME
        bad.append(f"--name: {one_line(args.name)!r} is no name (letters, digits, '_', '.' and '-', a letter or digit "
                   f"first, at most {NAME_MAX_LENGTH}): it names the search's directory under --out/search")
    return bad


def run(args) -> int:
    from ..host.metadata import host_facts  # heavy (optuna, scipy): only when this command runs
    from ..running.derived import holding_cpus
    from .study_output import print_and_report

    from ..analysis.search import best_name, found_name
    from ..report.interference import ratio_text
    from ..search.confirm import confirmation
    from ..search.engine import Settings, search
    from ..search.space import candidates
    from ..spec.run_caches import given, spec_caches
    bad = _problems(args)
    if bad:
        raise UsageError(f"search: {'; '.join(bad)}")
    spec, raw, _ = load_spec(args.spec, args.overrides)
    caches = spec_caches(spec, args.out, host_facts())  # measured where `xtalk host caches` measured them
    cands = candidates(spec.backend.kind, spec.backend.options, dict(given(caches)), args.stressor, args.channel,
                       args.tune)
    settings = Settings(name=args.name or spec.name, placement=args.placement, trials=args.trials,
                        budget_s=args.budget_min * 60 if args.budget_min else None, runs=args.runs,
                        confirm_runs=args.confirm_runs, duration_s=args.duration_s or spec.run.duration_s,
                        seed=args.seed, max_instances=args.max_instances, metric=args.metric,
                        stressors=tuple(args.stressor), channels=tuple(args.channel), tunes=tuple(args.tune))
    out, progress = console(markup=False), console(stderr=True, markup=False)  # trials on stderr, as runs are
    started = time.monotonic()
    with holding_cpus(spec, args.out, args.wait):
        found = search(raw, args.out, settings, cands, caches, say=lambda text: progress.print(text, soft_wrap=True))
        with confirmation(spec, raw, args.out, settings, found, cands, caches) as done:
            if done["reused"] and not args.json:
                out.print(f"confirmation already run by {done['by']} in campaign "
                          f"{done['analysis'].result['campaign']['id']}", soft_wrap=True)
            print_and_report(done["campaign"], out, not args.json)  # under the confirmation's lock: one writer
    outcome = done["analysis"].result["search"]
    if args.json:
        print(json.dumps({"outcome": outcome, "campaign": done["campaign"], "worst": str(done["worst"]),
                          "confirmation": {"by": done["by"], "reused": done["reused"]}}, indent=1, default=str))
        return EXIT_OK
    out.print(outcome["conclusion"], soft_wrap=True)
    best = outcome.get("best_default")
    if best:
        out.print(f"{found_name(outcome['found'])} over {best_name(outcome['found'], best)}: "
                  f"{ratio_text(outcome['against_best_default'])}")
    waited = time.monotonic() - started
    out.print(f"worst neighbour as a stressor: {done['worst']}  ({waited:.0f} s in all: {found['seconds']:.0f} s "
              f"of search trials, {waited - found['seconds']:.0f} s measuring alone and confirming)")
    return EXIT_OK
