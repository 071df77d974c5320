"""Helpers shared by subcommands: loading specs with every check (xtalk.preflight), finding campaigns."""
from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

from ..backend_registry import check_backend_options
from ..errors import InfrastructureError, Problem, SpecError, did_you_mean
from ..plan import backend_kinds
from ..preflight import spec_checks
from ..results.records import RecordError
from ..results.store import BoardStore, CampaignStore, catalog, named, started
from ..spec import parse_campaign
from ..spec.load import read_spec

DEFAULT_OUT = Path("results")


def load_spec(path: str, overrides: list[str] = ()):
    """(model, raw dict, text); the text carries the overrides as trailing comments so the
    stored spec.toml says how the campaign was run and --resume matches on them too."""
    text = read_spec(path)
    spec, raw = parse_campaign(text, path, check_backend_options, overrides, spec_checks(), base=Path(path).parent)
    return spec, raw, text + "".join(f"\n# xtalk run --set {o}" for o in overrides)


def backends_text(runs) -> str:
    """'backend qemu', or 'backends native, qemu' for a campaign with the backend as a dimension."""
    kinds = backend_kinds(runs)
    return f"backend{'s' if len(kinds) > 1 else ''} {', '.join(kinds)}"


def add_set(parser) -> None:
    parser.add_argument("--set", action="append", default=[], metavar="PATH=VALUE", dest="overrides",
                        help="override a spec value, e.g. --set run.repetitions=1 --set backend.accel=tcg")


def add_wait(parser) -> None:
    parser.add_argument("--wait", action="store_true",
                        help="wait for the CPUs (or campaign directory) another xtalk uses, instead of refusing")


def add_out(parser) -> None:
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results directory (default: results/)")


def find_campaign(out: Path, ident: str) -> CampaignStore:
    """A campaign by directory path, exact id, unique id prefix, or name (the latest); with
    @PLACE, one board's runs of a per-board fleet campaign.
    One whose campaign.json cannot be read raises its RecordError, also when it is the
    latest of its name (an older one is not picked silently)."""
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


def console(stderr: bool = False, markup: bool = True) -> Console:
    """A rich console that does not squeeze tables to 80 columns when piped."""
    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() else 200
    return Console(stderr=stderr, width=width, highlight=False, markup=markup)
