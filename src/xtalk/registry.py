"""Finding the classes of a plug-in package by name: every module of the package is
imported, and each subclass of the base (at any depth) that sets the naming attribute
itself is kept under its value. The output parsers (`name`) and the instruments (`kind`)
are found this way: adding one is adding one file to its package.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Iterable


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
