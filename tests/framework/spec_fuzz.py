"""Hypothesis strategies for fuzzing the spec loader, and how one spec fares with the CLI.

Specs are the repository's experiments/*.toml, mutated (a key deleted, a value replaced by
a huge, negative, NaN, empty, unicode or wrongly typed one, wrapped in a list or a table,
an unknown key added, a table nested deep), then text-level damage (a line of deep
nesting, a truncated file); or random TOML. `outcome` runs `xtalk spec check` (and
`run --dry-run` for a spec it passes) in this process, through cli.main as the command
runs it, and says what a user would see.
Caveat: the serialiser (tomli_w) recurses, so deep nesting is added as text.
"""
from __future__ import annotations

import contextlib
import copy
import io
import tomllib
from dataclasses import dataclass
from pathlib import Path

import tomli_w
from hypothesis import strategies as st

from tests.framework.repo import ROOT
from xtalk.cli.main import main

EXPERIMENTS = {p.name: p.read_text() for p in sorted((ROOT / "experiments").glob("*.toml"))}

SPEC_KEYS = ["name", "description", "cpus", "backend", "kind", "run", "duration_s", "repetitions", "measurer",
             "bench", "params", "stressors", "instances", "matrix", "placement", "timeline", "at_s", "target",
             "paired", "off_s", "on_s", "gates", "metric", "deadlines", "analysis", "warmup_runs", "image"]

WEIRD_VALUES = [0, -1, 1, 2**63, -2**63, 10**18, 1e300, -1e300, 1e-300, 1e-9, 1e7, float("nan"), float("inf"),
                -float("inf"), True, False, "", " ", "x y", "\u00e9t\u00e9", "\U0001f600", "\u202eevil", "\x1b[31m",
                "<b>html</b>", "llc*1.5", "solo", "qsort", "thrash", "copy", [], {}, [[]], [{}], [1, "a"],
                {"a": {"b": 1}}]

scalars = st.one_of(st.sampled_from(WEIRD_VALUES).map(copy.deepcopy),  # a fresh copy: mutations change it
                     st.integers(), st.floats(), st.booleans(),
                    st.text(max_size=12))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.one_of(st.sampled_from(SPEC_KEYS), st.text(max_size=6)),
                                                 inner, max_size=4)), max_leaves=12)


def _paths(node: object, prefix: tuple = ()) -> list[tuple]:
    """Every path into a TOML document's tree (the root's is ())."""
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _paths(value, prefix + (i,))
    return out


def _parent(doc: dict, path: tuple) -> tuple[object, object]:
    node = doc
    for part in path[:-1]:
        node = node[part]
    return node, path[-1]


def _nested(depth: int, leaf: object) -> object:
    for _ in range(depth):
        leaf = {"a": leaf}
    return leaf


@st.composite
def mutation(draw, doc: dict) -> None:
    """Change doc in place at one drawn path."""
    paths = _paths(doc)
    path = draw(st.sampled_from(paths))
    op = draw(st.sampled_from(["delete", "replace", "list", "table", "text", "unknown", "nest"]))
    if op == "unknown" or not path:
        node = doc
        for part in path:
            node = node[part]
        if isinstance(node, dict):
            node[draw(st.one_of(st.sampled_from(SPEC_KEYS), st.text(min_size=1, max_size=8)))] = draw(values)
        return
    parent, key = _parent(doc, path)
    if op == "delete":
        del parent[key]
    elif op == "replace":
        parent[key] = draw(values)
    elif op == "list":
        parent[key] = [parent[key]]
    elif op == "table":
        parent[key] = {"x": parent[key]}
    elif op == "text":
        parent[key] = str(parent[key])
    else:
        parent[key] = _nested(draw(st.integers(1, 30)), parent[key])


def _dump(doc: dict) -> str:
    try:
        return tomli_w.dumps(doc)
    except (TypeError, ValueError):  # a key tomli_w cannot write (a lone surrogate, ...)
        return tomli_w.dumps({"name": "unwritable"})


@st.composite
def damaged_text(draw, text: str) -> str:
    """Text-level damage: a line of deep nesting somewhere, or the file cut short."""
    lines = text.splitlines()
    op = draw(st.sampled_from(["none", "none", "deep-inline", "deep-array", "deep-dotted", "cut", "noise"]))
    at = draw(st.integers(0, len(lines)))
    depth = draw(st.sampled_from([40, 200, 1000, 5000]))
    if op == "deep-inline":
        lines.insert(at, "params = " + "{a = " * depth + "1" + "}" * depth)
    elif op == "deep-array":
        lines.insert(at, "cpus = " + "[" * depth + "1" + "]" * depth)
    elif op == "deep-dotted":
        lines.insert(at, "params." + ".".join(["a"] * depth) + " = 1")
    elif op == "cut":
        lines = lines[:at]
    elif op == "noise":
        lines.insert(at, draw(st.text(max_size=20)))
    return "\n".join(lines) + "\n"


@st.composite
def mutated_spec(draw) -> str:
    doc = tomllib.loads(EXPERIMENTS[draw(st.sampled_from(sorted(EXPERIMENTS)))])
    for _ in range(draw(st.integers(1, 4))):
        draw(mutation(doc))
    return draw(damaged_text(_dump(doc)))


random_toml = st.dictionaries(st.sampled_from(SPEC_KEYS), values, max_size=8).map(_dump)
specs = st.one_of(mutated_spec(), mutated_spec(), mutated_spec(), random_toml)

@dataclass(frozen=True)
class Outcome:
    code: int
    stderr: str

    @property
    def unexpected(self) -> bool:
        return "unexpected" in self.stderr or "Traceback" in self.stderr

    @property
    def lineless(self) -> list[str]:
        """Problems listed without their line."""
        return [line for line in self.stderr.splitlines() if line.startswith("  - ") and "(line " not in line]


def cli(*argv: str) -> Outcome:
    """`xtalk ARGV` in this process: its exit status and what it wrote to stderr."""
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exit_:  # argparse
            code = exit_.code if isinstance(exit_.code, int) else 2
    return Outcome(code, err.getvalue())


def outcome(text: str, directory: Path) -> list[Outcome]:
    """`xtalk spec check` of the text, and `xtalk run --dry-run` where the check passes."""
    path = directory / "fuzz.toml"
    path.write_text(text, encoding="utf-8")
    out = [cli("spec", "check", str(path))]
    if out[0].code == 0:
        out.append(cli("run", "--dry-run", str(path)))
    return out
