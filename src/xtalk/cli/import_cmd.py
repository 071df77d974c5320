"""`xtalk import NAME --output PARSER [--config DIMENSION=VALUE ...] LOG...`: console logs
of earlier runs as a campaign (xtalk.importer); `--append` adds another configuration's
logs to the latest campaign NAME. Prints one line per log, each problem the logs had
once with its count, the campaign, and how to add a second configuration where it has one."""
from __future__ import annotations

from pathlib import Path

from ..errors import EXIT_OK, Problem, SpecError
from .common import add_command, add_out, console


ORDER = 120  # its place in `xtalk --help`


def add_parser(sub) -> None:
    p = add_command(sub, "import", "turn console logs of earlier runs into a campaign (one run per log)", [
        "xtalk import thesis --output zephyr-latency-measure solo-*.log",
        "xtalk import thesis --output zephyr-latency-measure --config placement=same-core --append same-*.log"])
    p.add_argument("name", help="campaign name; the campaign is NAME-<timestamp> in --out")
    p.add_argument("logs", nargs="+", type=Path, metavar="LOG", help="console logs, one run each")
    p.add_argument("--output", required=True, metavar="PARSER",
                   help="the parser of the logs: zephyr-latency-measure, zephyr-thread-metric, cyclictest, regex, xt")
    p.add_argument("--parser", action="append", default=[], metavar="KEY=VALUE", dest="options",
                   help="a parser option (TOML value), e.g. --parser 'sample=\"lat: (?P<value>\\d+)\"'")
    p.add_argument("--bench", help="what the logs measured (default: the parser's first bench)")
    p.add_argument("--config", action="append", default=[], metavar="DIMENSION=VALUE", dest="sets",
                   help="the logs' configuration: a matrix dimension and its value, e.g. --config "
                        "placement=same-core (default placement=solo); repeatable")
    p.add_argument("--append", action="store_true",
                   help="add the runs to the latest campaign NAME (another configuration) instead of a new one")
    add_out(p)
    p.set_defaults(handler=run)


def _options(items: list[str]) -> dict:
    from ..controls import one_line
    from ..spec.assignment import BadAssignment, parse_assignment
    options, problems = {}, []
    for item in items:
        try:
            key, value = parse_assignment(item)
        except BadAssignment as why:
            problems.append(Problem(f"--parser {one_line(item)}", f"{why}: use KEY=VALUE, e.g. metric=latency"))
            continue
        options[key] = value
    if problems:
        raise SpecError("xtalk import", problems)
    return options


def run(args) -> int:
    from ..importer import Request, import_logs
    from ..report.second_config import second_config_hint
    req = Request(name=args.name, output=args.output, logs=args.logs, out=args.out, sets=args.sets,
                  options=_options(args.options), bench=args.bench, append=args.append)
    store, metas = import_logs(req)
    out = console(markup=False)
    for line in summary(metas):
        out.print(line, soft_wrap=True)
    configs = {m.get("config_id"): m.get("config") or {} for m in store.runs()}
    runs = len(store.runs())
    out.print(f"campaign: {store.path}: {len(configs)} configuration{'s' * (len(configs) != 1)} "
              f"({', '.join(configs)}), {runs} run{'s' * (runs != 1)}  (xtalk show {store.path}; "
              f"xtalk report {store.path})", soft_wrap=True)
    hint = second_config_hint(args.name, store.info.get("spec") or {}, configs, str(store.path.parent))
    if hint:
        out.print(hint, soft_wrap=True)
    return EXIT_OK


def summary(metas: list[dict]) -> list[str]:
    """One line per log (run, status, metrics and samples read, the log), then each kind
    of problem the logs had once, with how many logs had it."""
    lines, problems = [], {}
    for meta in metas:
        metrics = len(meta.get("metrics") or {})
        lines.append(f"{meta['run_id']:<24} {meta['status']:<6} {metrics:>4} metric{'s' * (metrics != 1)} "
                     f"{meta.get('sample_count', 0):>9,} samples  {meta['imported_from']}")
        said = ([f"{meta['status']}: {meta['reason']}"] if meta.get("reason") else []) + \
            [f"guest error: {e.get('msg', e)}" for e in meta.get("guest_errors") or []]
        for text in dict.fromkeys(said):
            problems[text] = problems.get(text, 0) + 1
    lines += [f"  {n} of {len(metas)} logs: {text}" for text, n in problems.items()]
    return lines
