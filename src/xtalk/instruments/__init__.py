"""Instruments: what measures a run from outside its guests (a logic analyser through
sigrok), one kind a module of this package (base.py says what an instrument is), found
by name as the output parsers are (`@INSTRUMENTS.register`, xtalk.plugins;
docs/instruments.md). `measure.py` turns a capture into the run's samples and the facts
show and the report tell.

May import: spec, images, parsers, telemetry, host, results, remote, cache, plugins,
files, tty, signals, errors, controls (the layers below it, pyproject.toml).
"""
from __future__ import annotations

from pathlib import Path

from ..errors import did_you_mean
from ..plugins import INSTRUMENTS
from ..spec.model import InstrumentSettings
from .base import Capture, Instrument

__all__ = ["Capture", "Instrument", "registry", "create", "option_problems"]


def registry() -> dict[str, type[Instrument]]:
    return INSTRUMENTS.by_name()


def create(settings: InstrumentSettings, run_dir: Path) -> Instrument:
    return registry()[settings.kind](settings, run_dir)


def option_problems(raw: dict) -> list[tuple[tuple, str]]:
    """Problems with a raw spec's [instrument]: an unknown kind, a table of another kind's
    options, or the kind's own options, as (path in the spec, message)."""
    table = raw.get("instrument")
    if not isinstance(table, dict) or not isinstance(table.get("kind"), str):
        return []  # no instrument, or the model tells what is wrong
    kind, known = table["kind"], registry()
    if kind not in known:
        return [(("instrument", "kind"), INSTRUMENTS.unknown(kind))]
    fields = set(InstrumentSettings.model_fields)
    out = [(("instrument", key), f"[instrument.{key}] holds the options of the {key} instrument; this one is "
            f"{kind}" if key in known else f"unknown key{did_you_mean(key, fields)} (an instrument's own options go "
            f"in [instrument.{kind}])") for key in table if key not in fields and key != kind]
    own = table.get(kind, {})
    if not isinstance(own, dict):
        return out + [(("instrument", kind), f"[instrument.{kind}] is a table of the {kind} instrument's options")]
    return out + [(("instrument", kind, *map(str, loc)), message)
                  for loc, message in INSTRUMENTS.option_problems(kind, own)]
