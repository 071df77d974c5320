"""The import contracts in pyproject.toml ([tool.importlinter], run by `make test`): they
hold on this tree, they fail, naming the contract, when a copy of src/xtalk gets one of
the edges the architecture forbids, and docs/architecture.md lists the same layers."""
import re
import shutil
import subprocess
import sys
import tomllib

import pytest

from tests.framework.repo import ROOT

LINT = "from importlinter.cli import lint_imports_command; lint_imports_command()"


def lint_imports(src, cwd) -> subprocess.CompletedProcess:
    """`lint-imports` with this repo's contracts over the package `xtalk` found in `src`."""
    return subprocess.run([sys.executable, "-c", LINT, "--no-cache", "--no-logo", str(ROOT / "pyproject.toml")],
                          cwd=cwd, env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin", "COLUMNS": "500"},
                          capture_output=True, text=True, timeout=120)


def verdicts(report: str) -> dict[str, str]:
    """Contract name -> KEPT or BROKEN, from lint-imports' summary lines."""
    return dict(re.findall(r"^(.+?) (KEPT|BROKEN)(?: \(\d+ ignored imports?\))?$", report, re.MULTILINE))


@pytest.fixture
def copy(tmp_path):
    """A copy of src/xtalk to add a forbidden import to."""
    shutil.copytree(ROOT / "src" / "xtalk", tmp_path / "src" / "xtalk", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "src"


def test_the_contracts_hold_on_this_tree(copy, tmp_path):
    res = lint_imports(copy, tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert set(verdicts(res.stdout).values()) == {"KEPT"}, res.stdout


CYCLE = "no import cycle between the modules of a package"


# each edge also closes a cycle: the module it names imports the one it is added to
@pytest.mark.parametrize("module, line, broken", [
    ("results/store.py", "from ..parsers import base", {"results must not import parsers", "xtalk layers", CYCLE}),
    ("backends/native.py", "from ..lab import vm", {"backends must not import lab", "xtalk layers", CYCLE}),
    ("analysis/verdict.py", "from ..report import tables", {"analysis must not import report", "xtalk layers", CYCLE}),
    ("spec/model.py", "from ..running import campaign", {"xtalk layers", "running a campaign, in layers", CYCLE}),
    ("running/runner.py", "from . import campaign", {"running a campaign, in layers", CYCLE}),
    ("backends/xen/host.py", "from . import dom0", {CYCLE}),
])
def test_a_forbidden_import_breaks_its_contract(copy, tmp_path, module, line, broken):
    path = copy / "xtalk" / module
    path.write_text(path.read_text() + f"\n{line}  # the forbidden edge\n")
    res = lint_imports(copy, tmp_path)
    assert res.returncode == 1, res.stdout + res.stderr
    assert {name for name, verdict in verdicts(res.stdout).items() if verdict == "BROKEN"} == broken, res.stdout


def test_the_docs_list_the_layers_of_the_contract():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in config if c["id"] == "layers"]
    table = (ROOT / "docs" / "architecture.md").read_text().split("| layer |", 1)[1].split("\n\n", 1)[0]
    first_cells = [re.split(r"(?<!\\)\|", row)[1] for row in table.splitlines()[2:]]  # "\|" is a | in a cell
    documented = [" | ".join(re.findall(r"`(\w+)`", cell)) for cell in first_cells]
    assert documented == layers


def test_each_package_header_says_what_it_may_import():
    """The last paragraph of each package's docstring names the layers below its own."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = [[name.strip() for name in layer.split("|")] for layer in
              next(c["layers"] for c in config if c["id"] == "layers")]
    packages = 0
    for i, layer in enumerate(layers):
        for name in layer:
            init = ROOT / "src" / "xtalk" / name / "__init__.py"
            if not init.is_file():
                continue  # a module
            packages += 1
            said = re.search(r"May import: ([^(]*)\(", " ".join(init.read_text().split()))
            assert said, f"{name}: no 'May import:' in its header"
            below = [n for lower in layers[i + 1:] for n in lower]
            expected = "every other package and module of xtalk " if i == 0 else ", ".join(below) + " "
            assert said.group(1) == expected, name
    assert packages >= 15
