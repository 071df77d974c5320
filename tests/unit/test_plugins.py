"""The plug-ins (xtalk.plugins): backends, output parsers and instruments are found the
same way (a class that registers itself in a module of its package, or of an installed
distribution's entry point), a clash of names is refused, and every kind words an unknown
option and an unknown name alike."""
from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import BaseModel, ConfigDict

from xtalk.plugins import BACKENDS, INSTRUMENTS, PARSERS, Plugins, option_problems

KINDS = [(BACKENDS, "native", "xtalk.backends.native"), (PARSERS, "cyclictest", "xtalk.parsers.cyclictest"),
         (INSTRUMENTS, "sigrok", "xtalk.instruments.sigrok")]


@pytest.mark.parametrize("kind, name, module", KINDS)
def test_each_kind_finds_its_classes_in_its_package_by_their_key(kind, name, module):
    cls = kind.by_name()[name]
    assert cls.__module__ == module and getattr(cls, kind.key) == name
    assert list(kind.by_name()) == sorted(kind.by_name())


@pytest.mark.parametrize("kind, name, module", KINDS)
def test_every_kind_words_an_unknown_option_and_an_unknown_name_alike(kind, name, module):
    assert kind.option_problems(name, {"no_such_option": 1}) == \
        [(("no_such_option",), f"unknown option for the {name} {kind.noun}")]
    assert kind.option_problems(name, {}) == [] or kind is INSTRUMENTS  # sigrok needs a driver or a place
    assert kind.unknown(name[:-1]) == (f"unknown {kind.noun} {name[:-1]!r} (did you mean {name}?) "
                                       f"(known: {', '.join(kind.by_name())})")


def test_a_second_class_under_a_known_name_is_refused():
    kind = Plugins("widget", "xtalk.parsers")

    class Model(BaseModel):
        model_config = ConfigDict(extra="forbid")

    first = type("First", (), {"name": "same", "Options": Model})
    kind.register(first)
    kind.register(first)  # the same class again (a module imported twice): not a clash
    with pytest.raises(TypeError, match="two widgets are named 'same'"):
        kind.register(type("Second", (), {"name": "same", "Options": Model}))
    assert option_problems(Model, "the same widget", {"x": 1}) == [(("x",), "unknown option for the same widget")]


def test_a_parser_of_an_installed_distribution_is_found_by_its_entry_point(tmp_path):
    """As a backend of one's own is (tests/blackbox/test_backend_of_ones_own.py), in a fresh
    interpreter so that this one's plug-ins stay as they are."""
    (tmp_path / "my_parser.py").write_text(
        "from xtalk.plugins import PARSERS\nfrom xtalk.parsers.ignore import IgnoreParser\n\n\n"
        "@PARSERS.register\nclass Mine(IgnoreParser):\n    name = 'mine'\n")
    info = tmp_path / "my_parser-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-parser\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{PARSERS.group}]\nmine = my_parser\n")
    code = "from xtalk import parsers; print(parsers.get('mine').__module__)"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={"PYTHONPATH": f"{tmp_path}:{':'.join(sys.path)}", "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0 and res.stdout.strip() == "my_parser", res.stderr


def test_a_builtin_plugin_outside_the_module_of_its_name_is_refused():
    kind = Plugins("widget", "xtalk.parsers", own_modules=True)
    kind.register(type("Fine", (), {"name": "zephyr-thread-metric", "__module__": "xtalk.parsers.zephyr_thread_metric"}))
    kind.register(type("Outside", (), {"name": "anything", "__module__": "my_package.widgets"}))  # an entry point's
    with pytest.raises(TypeError, match="'elsewhere' is defined in xtalk.parsers.xt: it belongs in "
                                        "xtalk.parsers.elsewhere"):
        kind.register(type("Misplaced", (), {"name": "elsewhere", "__module__": "xtalk.parsers.xt"}))


def test_a_plugin_asked_for_by_name_loads_its_own_module_only_and_its_hooks_then():
    """In a fresh interpreter: get('qemu') imports xtalk.backends.qemu and not the xen
    backend, nor does a name that is no backend's (a spec's [backend] option) or a parser's
    with a hyphen; a hook on xen runs once xen is loaded (by the whole kind's load), not before."""
    code = ("import sys\nfrom xtalk.plugins import BACKENDS, PARSERS\nran = []\n"
            "BACKENDS.when_loaded('xen', lambda: ran.append(1))\n"
            "assert BACKENDS.get('qemu').__module__ == 'xtalk.backends.qemu'\n"
            "assert BACKENDS.get('machine') is None and BACKENDS.get('base') is None\n"
            "assert PARSERS.get('zephyr-thread-metric').__module__ == 'xtalk.parsers.zephyr_thread_metric'\n"
            "assert 'xtalk.parsers.xt' not in sys.modules\n"
            "print('xtalk.backends.xen' in sys.modules, ran)\n"
            "BACKENDS.by_name()\nprint('xtalk.backends.xen' in sys.modules, ran)\n"
            "BACKENDS.when_loaded('xen', lambda: ran.append(2))\nprint(ran)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split("\n")[:3] == ["False []", "True [1]", "[1, 2]"]
