"""The report's plots: one module per plot in this package, each registering its drawing
function with @plot(order); `campaign_plots(analysis)` draws them all, in order. A new
plot is one new module here (plus its test), nothing else.

Each drawing function takes a common.Context and returns a list of common.Plot: PNG
bytes plus the metadata of every axis (label, unit, scale), which the tests check.
A matplotlib Figure is a cycle of references, freed only by the cyclic garbage collector:
its figures are collected once a function's PNGs are made, so that they do not add up
(3-9 MB each) until the collector happens to run.
"""
from __future__ import annotations

import gc
import importlib
import pkgutil
from typing import Callable

from .common import Context, Plot

REGISTRY: list[tuple[int, str, Callable[[Context], list[Plot]]]] = []


def plot(order: int):
    def register(fn: Callable[[Context], list[Plot]]):
        REGISTRY.append((order, fn.__module__.rsplit(".", 1)[-1], fn))
        return fn
    return register


def _load() -> None:
    """Import every plot module (each registers itself once; importing again is a no-op)."""
    for mod in pkgutil.iter_modules(__path__):
        if mod.name != "common":
            importlib.import_module(f"{__name__}.{mod.name}")


def campaign_plots(analysis) -> list[dict]:
    """Every plot of a campaign: [{'id', 'title', 'png', 'axes', 'kind', 'metric'}]."""
    _load()
    ctx = Context.of(analysis)
    out = []
    for _, kind, fn in sorted(REGISTRY, key=lambda r: r[0]):
        figures = fn(ctx)
        out += [dict(p.as_dict(), kind=kind) for p in figures]
        if figures:
            del figures
            gc.collect()
    return out
