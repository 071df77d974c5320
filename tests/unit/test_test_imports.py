"""The tests' own layout: a module under tests/ imports from the tests package only what
tests/framework/ holds, never another test module (what two modules share belongs in
the framework; pytest's conftest.py mechanism brings fixtures without an import)."""
import ast
from pathlib import Path

from tests.framework.repo import ROOT


def imported(path: Path, package: str) -> set[str]:
    """Every module `path` imports (anywhere in it), relative imports resolved against
    `package`, the dotted name of the package `path` is in."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def forbidden_imports(tests: Path) -> list[str]:
    """'file: module' for each import of a tests.* module outside tests.framework in the
    files under `tests`."""
    found = []
    for path in sorted(tests.rglob("*.py")):
        package = ".".join(("tests", *path.parent.relative_to(tests).parts))
        for name in sorted(imported(path, package)):
            if name.split(".")[0] == "tests" and name.split(".")[:2] != ["tests", "framework"]:
                found.append(f"{path.relative_to(tests.parent)}: {name}")
    return found


def test_no_test_module_imports_another():
    assert forbidden_imports(ROOT / "tests") == []


def test_an_import_of_a_test_module_is_found(tmp_path):
    """The check itself: a test module imported by absolute, relative and late imports
    is found; the framework is not."""
    (tmp_path / "tests" / "unit" / "sub").mkdir(parents=True)
    (tmp_path / "tests" / "framework").mkdir()
    (tmp_path / "tests" / "unit" / "test_a.py").write_text(
        "from tests.framework.cli import xtalk\nfrom tests import framework\n"
        "from tests.unit.test_b import helper\n")
    (tmp_path / "tests" / "unit" / "sub" / "test_c.py").write_text(
        "from ..test_b import helper\n\n\ndef test_x():\n    import tests.conftest\n")
    assert forbidden_imports(tmp_path / "tests") == [
        "tests/unit/sub/test_c.py: tests.conftest",
        "tests/unit/sub/test_c.py: tests.unit.test_b.helper",
        "tests/unit/test_a.py: tests.unit.test_b.helper",
    ]
