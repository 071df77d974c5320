"""Helpers shared by subcommands: their --help (a description, examples, the options
several commands share, worded once so they mean the same everywhere), loading specs with
every check (xtalk.running.preflight), finding campaigns. The results directory is --out, else
$XTALK_OUT, else results/.
Every command module imports this one to build its parser (`xtalk --help` builds them all), so
at import time it takes only the standard library and xtalk's lightest modules: what loads a
spec, finds a campaign or prints (pydantic, the store, rich) is imported by the function that
does it (tests/unit/cli/test_startup.py holds the line)."""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from ..host.arches import ARCHES, normalise
from ..errors import InfrastructureError, Problem, SpecError, did_you_mean

OUT_ENV = "XTALK_OUT"
EXAMPLES_HEADING = "examples:"


def default_out() -> Path:
    """The results directory when no --out is given: $XTALK_OUT, else results/."""
    return Path(os.environ.get(OUT_ENV) or "results")


class HelpFormatter(argparse.HelpFormatter):
    """Wraps the description and each option's help, keeps the examples' lines as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith(EXAMPLES_HEADING):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def examples_text(examples: Sequence[str], after: str = "") -> str:
    return "\n".join([EXAMPLES_HEADING, *(f"  {e}" for e in examples)]) + (f"\n\n{after}" if after else "")


STOPPED_EARLY = "it stopped before it finished"  # what a Ctrl-C says of a command that starts no guest
GUESTS_STOPPED = "every guest was stopped and what was measured is stored"  # ... and of one that does


def add_command(sub, name: str, summary: str, examples: Sequence[str], more: str = "") -> argparse.ArgumentParser:
    """A subcommand: `summary` in the list of commands and, with `more`, at the top of its
    --help; the examples (commands as typed, starting with `xtalk`) at its end."""
    described = f"{summary[0].upper()}{summary[1:]}." + (f" {more}" if more else "")
    return sub.add_parser(name, help=summary, description=described, epilog=examples_text(examples),
                          formatter_class=HelpFormatter)


def load_spec(path: str, overrides: list[str] = ()):
    """(model, raw dict, text); the text carries the overrides as trailing comments so the
    stored spec.toml says how the campaign was run and --resume matches on them too."""
    from ..plugins import check_backend_options
    from ..running.preflight import spec_checks
    from ..spec.load import parse_campaign
    from ..spec.load import read_spec
    text = read_spec(path)
    spec, raw = parse_campaign(text, path, check_backend_options, overrides, spec_checks(), base=Path(path).parent)
    return spec, raw, text + "".join(f"\n# xtalk run --set {o}" for o in overrides)


def backends_text(runs) -> str:
    """'backend qemu', or 'backends native, qemu' for a campaign with the backend as a dimension."""
    from ..spec.plan import backend_kinds
    kinds = backend_kinds(runs)
    return f"backend{'s' if len(kinds) > 1 else ''} {', '.join(kinds)}"


def add_set(parser, example: str = "--set run.repetitions=1 --set backend.accel=tcg") -> None:
    parser.add_argument("--set", action="append", default=[], metavar="PATH=VALUE", dest="overrides",
                        help=f"override one spec value (a dotted path, a TOML value) for this command only, e.g. "
                             f"{example}; repeatable")


def add_study_inputs(parser, used: str, set_example: str) -> None:
    """What a command that runs campaigns of its own from a spec (calibrate, channels,
    search) takes: the spec (`used`: which of its parts), --out, --set, --wait."""
    parser.add_argument("spec", metavar="SPEC", help=f"campaign spec (TOML file): {used}")
    add_out(parser)
    add_set(parser, set_example)
    add_wait(parser)


def add_wait(parser) -> None:
    parser.add_argument("--wait", action="store_true",
                        help="wait for the CPUs (or campaign directory) another xtalk uses, instead of refusing")


def add_out(parser) -> None:
    parser.add_argument("--out", type=Path, default=default_out(), metavar="DIR",
                        help=f"results directory, where campaigns are stored (default: ${OUT_ENV} if set, else "
                             f"results/{'; now ' + os.environ[OUT_ENV] if os.environ.get(OUT_ENV) else ''})")


def add_arch(parser, default: str | None, default_text: str) -> None:
    """--arch, in the spellings host/arches.py knows (aarch64, amd64 name the same)."""
    parser.add_argument("--arch", default=default, choices=sorted(ARCHES), type=lambda text: normalise(text) or text,
                        help=f"machine architecture: {' or '.join(sorted(ARCHES))} (aarch64, amd64: the same; "
                             f"default {default_text})")


def add_json(parser, what: str) -> None:
    parser.add_argument("--json", action="store_true", help=f"print {what} on stdout as JSON instead of text")


def add_sample_selection(parser) -> None:
    """Which samples the statistics take (report and compare)."""
    parser.add_argument("--include-warmup", action="store_true", help="include warm-up samples and warm-up runs")
    parser.add_argument("--exclude-rampup", action="store_true",
                        help="exclude each run's detected start-up ramp (significant MSER-5 warm-up) from the "
                             "statistics")


def find_campaign(out: Path, ident: str):
    """A campaign by directory path, exact id, unique id prefix, or name (the latest); with
    @PLACE, one board's runs of a per-board fleet campaign.
    One whose campaign.json cannot be read raises its RecordError, also when it is the
    latest of its name (an older one is not picked silently)."""
    from ..results.records import RecordError
    from ..results.store import BoardStore, CampaignStore, catalog, named, started
    if (Path(ident) / "campaign.json").exists():
        return CampaignStore(Path(ident))
    if "@" in ident and not (out / ident).exists():  # CAMPAIGN@PLACE: one board of a per-board fleet campaign
        ident, _, board = ident.rpartition("@")
        view = BoardStore(find_campaign(out, ident).path, board)
        if board not in view.boards():
            raise SpecError(f"{ident}@{board}", [Problem("ID", f"no board {board!r} in {view.path.name} (boards: "
                                                               f"{', '.join(view.boards()) or 'none: not a per-board fleet campaign'})")])
        return view
    campaigns, damaged = catalog(out)
    entries = sorted([(c.path.name, c) for c in campaigns] + [(e.file.parent.name, e) for e in damaged],
                     key=lambda entry: started(entry[0]))  # the newest last, whatever its name
    exact = [x for n, x in entries if n == ident]
    by_name = [x for n, x in entries if (x.info["name"] == ident if isinstance(x, CampaignStore) else named(n, ident))]
    prefix = [x for n, x in entries if n.startswith(ident)]
    if exact or by_name or len(prefix) == 1:
        found = (exact or by_name or prefix)[-1]
        if isinstance(found, RecordError):
            raise found
        return found
    if prefix:
        why = f"{ident!r} matches several campaigns: {', '.join(n for n, _ in entries if n.startswith(ident))}"
    else:
        known = ", ".join(n for n, _ in reversed(entries[-5:])) or "none"
        names = {x.info["name"] for _, x in entries if isinstance(x, CampaignStore)}
        why = f"no campaign {ident!r} in {out}{did_you_mean(ident, names)} (the newest: {known})"
    raise SpecError(ident, [Problem("ID", why)])


def require_dir(out: Path) -> None:
    if not out.is_dir():
        raise InfrastructureError(f"results directory {out} does not exist (run a campaign first)")


def console(stderr: bool = False, markup: bool = True):
    """A rich console (xtalk.tty.Console) that does not squeeze tables to 80 columns when piped."""
    from ..tty import Console
    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() else 200
    return Console(stderr=stderr, width=width, highlight=False, markup=markup)
