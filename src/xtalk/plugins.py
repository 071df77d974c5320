"""The plug-ins: the backends, the output parsers and the instruments, each kind found the
same way (Plugins).

A plug-in class registers itself with `@KIND.register` where it is defined (BACKENDS,
PARSERS, INSTRUMENTS), under the value of its key attribute (`name`; an instrument's
`kind`). The first question to a kind imports every module of its package and every
module an installed distribution names in the entry point group of the same name
(`xtalk.backends`, `xtalk.parsers`, `xtalk.instruments`: a plug-in kept outside xtalk,
docs/backends.md): adding one is adding one file there, or installing one module that
declares it. Its options are its class's pydantic model `Options`, and every kind words
an unknown option the same way: "unknown option for the NAME KIND".

Everything that knows the backends asks here: the spec (`backend_class`: which tables of
[backend] are a backend's own), the plan, the host facts (`host_facts`: what each backend
adds to them), `xtalk host show`, the report's setup and the fleet (`reaches`).
At import time this module imports only xtalk.errors, so the layers below the plug-ins
(spec, plan, host) may ask it, and a command that asks nothing of them pays nothing; it
loads the plug-ins on the first question, and for a question about one plug-in by name
(`get`) only that plug-in's module (plus the entry points): a built-in backend, parser or
instrument is in the module (or package) of its name, "-" read "_" (`own_modules`, which
register() holds them to), so a name with no such module is no plug-in of the kind
without importing the others (a spec's [backend] keys are asked one by one).
What plugs into a plug-in from a layer above it (the lab into the xen backend) is said
with when_loaded: it runs once that plug-in is there, and not at all in a command that
never loads it.

Caveat: a plug-in module that fails to import fails every question of its kind that
loads it (all of them but `get` of another plug-in with a module of its own; an entry
point's error is an InfrastructureError naming it): a broken plug-in is not silently left out.
"""
from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .errors import InfrastructureError, did_you_mean

if TYPE_CHECKING:
    from pydantic import BaseModel


class Plugins:
    """One kind of plug-in: its classes (or the objects that stand for them: an analysis
    stage's function, a report section's entry) by name, found in `package` and the entry
    point group of the same name."""

    def __init__(self, noun: str, package: str, key: str = "name", own_modules: bool = False):
        self.noun, self.package, self.group, self.key = noun, package, package, key
        self.own_modules = own_modules  # each plug-in of `package` is in the module of its name
        self._classes: dict[str, type] = {}
        self._loaded = self._points_loaded = False
        self._hooks: dict[str, list[Callable[[], None]]] = {}

    def when_loaded(self, name: str, hook: Callable[[], None]) -> None:
        """Call `hook` once the plug-in `name` is loaded: now when it is, else right after
        the question that loads it."""
        self._hooks.setdefault(name, []).append(hook)
        self._run_hooks()

    def _run_hooks(self) -> None:
        for name in [n for n in self._hooks if n in self._classes]:
            for hook in self._hooks.pop(name):
                hook()

    def register(self, cls: type) -> type:
        """Class decorator: `cls` under the value of its key attribute."""
        name = getattr(cls, self.key)
        module = getattr(cls, "__module__", "")
        if self.own_modules and module.startswith(f"{self.package}.") and \
                module.split(".")[len(self.package.split("."))] != _module_name(name):
            raise TypeError(f"the {self.noun} {name!r} is defined in {module}: it belongs in "
                            f"{self.package}.{_module_name(name)}")
        known = self._classes.get(name)
        if known is not None and _origin(known) != _origin(cls):
            raise TypeError(f"two {self.noun}s are named {name!r}: {_origin(known)} and {_origin(cls)}")
        self._classes[name] = cls
        return cls

    def _load(self) -> None:
        if self._loaded:
            return
        package = importlib.import_module(self.package)
        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{self.package}.{module.name}")
        self._load_points()
        self._loaded = True
        self._run_hooks()

    def _load_one(self, name: str) -> bool:
        """Whether the plug-in `name` is loaded from its own module (PACKAGE.NAME, when there
        is one) and the entry points, without the package's other modules: a command that
        reads one backend's runs imports that backend only. The entry points are loaded all
        the same, so that one naming the same plug-in is the clash it is."""
        module = _module_name(name)
        if name not in self._classes and module.isidentifier() and \
                importlib.util.find_spec(f"{self.package}.{module}") is not None:
            importlib.import_module(f"{self.package}.{module}")
        self._load_points()
        self._run_hooks()
        return name in self._classes

    def _load_points(self) -> None:
        if self._points_loaded:
            return
        from importlib.metadata import entry_points
        for point in entry_points(group=self.group):
            try:
                point.load()
            except Exception as err:  # noqa: BLE001 - any error of someone else's module: named, not a traceback
                raise InfrastructureError(f"the {self.noun} module of entry point {point.name} = {point.value} "
                                          f"(group {self.group}) failed to load: {type(err).__name__}: {err}") from err
        self._points_loaded = True

    def by_name(self) -> dict[str, Any]:
        """Every plug-in of this kind by name, sorted by name."""
        self._load()
        return dict(sorted(self._classes.items()))

    def get(self, name: str) -> type | None:
        if not self._loaded and (self._load_one(name) or self.own_modules):
            return self._classes.get(name)
        return self.by_name().get(name)

    def unknown(self, name: str) -> str:
        """Why `name` is no plug-in of this kind: the names it may have meant, and all."""
        known = self.by_name()
        return f"unknown {self.noun} {name!r}{did_you_mean(name, known)} (known: {', '.join(known) or 'none'})"

    def option_problems(self, name: str, options: dict[str, Any]) -> list[tuple[tuple, str]]:
        """Problems with the options of the plug-in `name`, as option_problems words them."""
        return option_problems(self.by_name()[name].Options, f"the {name} {self.noun}", options)


def option_problems(model: type[BaseModel], owner: str, options: dict[str, Any]) -> list[tuple[tuple, str]]:
    """Problems with `options` against a plug-in's options model, each as (path inside the
    options, message); [] when fine. `owner` names the plug-in ("the native backend")."""
    from pydantic import ValidationError
    try:

        model.model_validate(options)
    except ValidationError as err:
        return [(tuple(e["loc"]), f"unknown option for {owner}" if e["type"] == "extra_forbidden" else e["msg"])
                for e in err.errors()]
    return []


def _module_name(name: str) -> str:
    """The module a built-in plug-in of this name is in (own_modules)."""
    return name.replace("-", "_")


def _origin(plugin: Any) -> str:
    """Where a plug-in was defined: a class or function by its qualified name (the same one
    registered again, as a module imported twice does, is no clash); any other object is
    its own."""
    name = getattr(plugin, "__qualname__", None)
    return f"{plugin.__module__}.{name}" if name else f"{type(plugin).__qualname__} at {id(plugin):#x}"


BACKENDS = Plugins("backend", "xtalk.backends", own_modules=True)
PARSERS = Plugins("output parser", "xtalk.parsers", own_modules=True)
INSTRUMENTS = Plugins("instrument", "xtalk.instruments", key="kind", own_modules=True)


def backend_kinds() -> tuple[str, ...]:
    return tuple(BACKENDS.by_name())


def backend_class(kind: str) -> type | None:
    return BACKENDS.get(kind)


def check_backend_options(kind: str, options: dict[str, Any]) -> list[tuple[str, str]]:
    """Problems with a backend's options as (key, message); an unknown kind is one on `kind`."""
    cls = backend_class(kind)
    if cls is None:
        return [("kind", BACKENDS.unknown(kind))]
    return cls.check_options(options)


def host_facts() -> dict[str, Any]:
    """What each backend adds to the host facts (its tool's versions...), under its kind."""
    return {kind: facts for kind, cls in BACKENDS.by_name().items() if (facts := cls.host_facts()) is not None}


def reaches() -> dict[str, type]:
    """The fleet reaches that backends offer (a board's hypervisor driven from here), each
    with its backend class; reach `worker` (xtalk runs on the board) is the fleet's own."""
    return {cls.reach: cls for cls in BACKENDS.by_name().values() if cls.reach is not None}
