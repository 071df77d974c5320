"""What a command imports before it does its work (issue 46: a command imports only what it
uses). Each command runs in a fresh interpreter, which then names the heavy libraries that
were imported: `xtalk --help` (every command's parser built) takes none of them, `xtalk
list` only rich where this code checked and stamped the records (record_file.py), and
pydantic (with a record's backend, not the spec's models) for one it did not, `xtalk spec
check` only pydantic and rich, of the backends its spec's only, and of the results store nothing where there is no results directory.
Timing is benchmarks/bench_startup.py's, not a test's."""
import json
import subprocess
import sys
from pathlib import Path

from tests.framework.synthetic import heavy_tail, write_campaign, write_run
from xtalk.results.manifest import manifest
from xtalk.results.records import load_run
from xtalk.results.store import save_run_record

HEAVY = ("numpy", "scipy", "pyarrow", "duckdb", "matplotlib", "optuna", "labgrid", "grpc", "pydantic", "rich")
ROOT = Path(__file__).resolve().parents[3]


def imported_by(*argv: str, watched: tuple[str, ...] = HEAVY) -> set[str]:
    """The watched modules in sys.modules once `xtalk ARGV` is done, run in a fresh interpreter."""
    code = ("import json, sys\nfrom xtalk.cli.main import main\ntry:\n    code = main(sys.argv[1:])\n"
            "except SystemExit as done:  # --help\n    code = done.code\n"
            f"print(json.dumps([m for m in {watched!r} if m in sys.modules]), file=sys.stderr)\nsys.exit(code)")
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def test_help_builds_every_parser_without_a_heavy_library():
    assert imported_by("--help") == set()


def a_stored_run(results: Path) -> Path:
    """A campaign of one finished run (its files in its manifest), written by this code."""
    campaign = write_campaign(results / "c-20260101-000000", "c", {}, ["r1"])
    write_run(campaign, "r1", {"placement": "solo"}, 1000, heavy_tail(),
              extra_meta={"backend": "native", "guests": {"measurer": {"pid": 1}}})
    run_dir = campaign / "runs" / "r1"
    save_run_record(run_dir, dict(load_run(run_dir / "meta.json", 1), files=manifest(run_dir)))
    return run_dir


def test_list_reads_records_this_code_checked_without_pydantic(tmp_path):
    a_stored_run(tmp_path)
    found = imported_by("list", "--out", str(tmp_path), watched=HEAVY + ("xtalk.backends.native", "xtalk.spec.load"))
    assert found == {"rich"}


def test_list_checks_a_record_this_code_did_not_stamp_with_pydantic(tmp_path):
    meta = a_stored_run(tmp_path) / "meta.json"
    record = json.loads(meta.read_text())
    meta.write_text(json.dumps(dict(record, checked="0" * 64)))  # as another xtalk's code stamps it
    found = imported_by("list", "--out", str(tmp_path), watched=HEAVY + ("xtalk.backends.native", "xtalk.spec.load"))
    assert found == {"pydantic", "rich", "xtalk.backends.native"}  # its guests' facts: the spec's models not


def test_spec_check_imports_pydantic_rich_and_its_backend_only():
    mine = ("xtalk.backends.qemu", "xtalk.backends.native", "xtalk.backends.xen", "xtalk.results.records",
            "xtalk.results.store")
    found = imported_by("spec", "check", "experiments/quickstart.toml", "--out", "/nonexistent/results",
                        watched=HEAVY + mine)
    assert found == {"pydantic", "rich", "xtalk.backends.qemu"}
