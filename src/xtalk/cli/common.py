"""Helpers shared by subcommands: loading specs with backend checks, finding campaigns."""
from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

from ..backends.base import check_backend_options
from ..errors import InfrastructureError, SpecError, Problem
from ..results.store import CampaignStore, list_campaigns
from ..spec import load_campaign

DEFAULT_OUT = Path("results")


def load_spec(path: str, overrides: list[str] = ()):
    """(model, raw dict, text); the text carries the overrides as trailing comments so the
    stored spec.toml says how the campaign was run and --resume matches on them too."""
    spec, raw = load_campaign(path, check_backend_options, overrides)
    text = Path(path).read_text() + "".join(f"\n# xtalk run --set {o}" for o in overrides)
    return spec, raw, text


def add_set(parser) -> None:
    parser.add_argument("--set", action="append", default=[], metavar="PATH=VALUE", dest="overrides",
                        help="override a spec value, e.g. --set run.repetitions=1 --set backend.accel=tcg")


def add_out(parser) -> None:
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results directory (default: results/)")


def find_campaign(out: Path, ident: str) -> CampaignStore:
    """A campaign by directory path, exact id, unique id prefix, or name (the latest)."""
    if Path(ident).is_dir() and (Path(ident) / "campaign.json").is_file():
        return CampaignStore(Path(ident))
    campaigns = list_campaigns(out)
    exact = [c for c in campaigns if c.path.name == ident]
    by_name = [c for c in campaigns if c.info["name"] == ident]
    prefix = [c for c in campaigns if c.path.name.startswith(ident)]
    if exact or by_name or len(prefix) == 1:
        return (exact or by_name or prefix)[-1]
    if prefix:
        why = f"{ident!r} matches several campaigns: {', '.join(c.path.name for c in prefix)}"
    else:
        known = ", ".join(c.path.name for c in campaigns[-5:]) or "none"
        why = f"no campaign {ident!r} in {out} (latest: {known})"
    raise SpecError(ident, [Problem("ID", why)])


def require_dir(out: Path) -> None:
    if not out.is_dir():
        raise InfrastructureError(f"results directory {out} does not exist (run a campaign first)")


def console(stderr: bool = False, markup: bool = True) -> Console:
    """A rich console that does not squeeze tables to 80 columns when piped."""
    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() else 200
    return Console(stderr=stderr, width=width, highlight=False, markup=markup)
