"""The plug-ins: the backends, the output parsers and the instruments, found by name.

The backend registry: every Backend class (xtalk.backends.base) by its kind name.

A backend class registers itself with `@register` where it is defined. `registry()` first
imports every module of the xtalk.backends package and every module an installed
distribution names in the entry point group `xtalk.backends` (a backend kept outside
xtalk: docs/backends.md), as parsers/__init__.py finds the output parsers: adding a
backend is adding one file there, or installing one module that declares it.
Everything that knows the backends asks here: the spec (`backend_kinds`: which tables of
[backend] are a backend's own), the plan, the host facts (`host_facts`: what each backend
adds to them), `xtalk host show`, the report's setup and the fleet (`reaches`).
At import time this module imports only xtalk.errors, so the layers below the backends
(spec, plan, host) may ask it; it loads the backends by name on the first question.
Caveat: a backend module that fails to import fails every question (InfrastructureError
naming it): a broken backend is not silently left out.

Finding the classes of a plug-in package by name: every module of the package is
imported, and each subclass of the base (at any depth) that sets the naming attribute
itself is kept under its value. The output parsers (`name`) and the instruments (`kind`)
are found this way: adding one is adding one file to its package.
"""
from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from importlib.metadata import entry_points
from typing import Any, Iterable

from .errors import InfrastructureError, did_you_mean

PACKAGE = "xtalk.backends"
ENTRY_POINTS = "xtalk.backends"  # group of the entry points that name a module defining backends

_CLASSES: dict[str, type] = {}


def register(cls: type) -> type:
    """Class decorator: the backend `cls` under its kind `cls.name`."""
    known = _CLASSES.get(cls.name)
    if known is not None and (known.__module__, known.__qualname__) != (cls.__module__, cls.__qualname__):
        raise TypeError(f"two backends are named {cls.name!r}: {known.__module__}.{known.__qualname__} and "
                        f"{cls.__module__}.{cls.__qualname__}")
    _CLASSES[cls.name] = cls
    return cls


@cache
def _load() -> None:
    package = importlib.import_module(PACKAGE)
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{PACKAGE}.{module.name}")
    for point in entry_points(group=ENTRY_POINTS):
        try:
            point.load()
        except Exception as err:  # noqa: BLE001 - any error of someone else's module: named, not a traceback
            raise InfrastructureError(f"the backend module of entry point {point.name} = {point.value} (group "
                                      f"{ENTRY_POINTS}) failed to load: {type(err).__name__}: {err}") from err


def registry() -> dict[str, type]:
    """Every backend class by kind, sorted by kind."""
    _load()
    return dict(sorted(_CLASSES.items()))


def backend_kinds() -> tuple[str, ...]:
    return tuple(registry())


def backend_class(kind: str) -> type | None:
    return registry().get(kind)


def check_backend_options(kind: str, options: dict[str, Any]) -> list[tuple[str, str]]:
    """Problems with a backend's options as (key, message); an unknown kind is one on `kind`."""
    cls = backend_class(kind)
    if cls is None:
        return [("kind", f"unknown backend {kind!r}{did_you_mean(kind, registry())} (known: {', '.join(registry()) or 'none'})")]
    return cls.check_options(options)


def host_facts() -> dict[str, Any]:
    """What each backend adds to the host facts (its tool's versions...), under its kind."""
    return {kind: facts for kind, cls in registry().items() if (facts := cls.host_facts()) is not None}


def reaches() -> dict[str, type]:
    """The fleet reaches that backends offer (a board's hypervisor driven from here), each
    with its backend class; reach `worker` (xtalk runs on the board) is the fleet's own."""
    return {cls.reach: cls for cls in registry().values() if cls.reach is not None}


def subclasses_by(package: str, path: Iterable[str], base: type, attr: str, skip: tuple[str, ...] = ()) -> dict:
    """{value of `attr`: class} of every subclass of `base` the modules of `package`
    (found on `path`, but those named in `skip`) define, sorted by the value."""
    for module in pkgutil.iter_modules(path):
        if module.name not in skip:
            importlib.import_module(f"{package}.{module.name}")
    found: dict = {}
    stack = list(base.__subclasses__())
    while stack:
        cls = stack.pop()
        stack += cls.__subclasses__()
        if attr in vars(cls):
            found[getattr(cls, attr)] = cls
    return dict(sorted(found.items()))
