"""Nothing wrong passes silently, through the real xtalk command on the native backend:
damaged result files, odd spec files, SQL errors, runs that fail, read-only and full
disks. Each ends in a named warning or in one `xtalk: error:` line with its exit code,
never in a traceback."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.framework.cli import (alive, campaign_dir, guest_pids, run_meta, small, start, started_runs, wait_for,
                                write_spec, xtalk)
from tests.framework.shared import made_once
from tests.framework.tmpfs import fill, mount  # noqa: F401 - mount: a fixture


@pytest.fixture(scope="module")
def stored(tmp_path_factory, native_bench) -> Path:
    """A finished campaign: solo and same-core, three runs each (once for the test run:
    tests/framework/shared.py)."""
    def measure(tmp):
        res = xtalk("run", small(tmp, duration=1, reps=3), "--out", tmp / "out")
        assert res.returncode == 0, res.stderr

    tmp, _ = made_once(tmp_path_factory, "cli-errors-stored", measure)
    return campaign_dir(tmp / "out")


@pytest.fixture
def campaign(stored, tmp_path) -> Path:
    """A copy of the stored campaign to damage, in tmp_path/out."""
    return Path(shutil.copytree(stored, tmp_path / "out" / stored.name))


def one_error_line(res: subprocess.CompletedProcess, code: int, *words: str, alone: bool = True) -> str:
    """The one `xtalk: error:` line, with `words` in it; `alone`: nothing else on stderr
    (else: the progress lines of a run, DuckDB's pointer into the SQL)."""
    assert res.returncode == code, res.stdout + res.stderr
    assert "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("xtalk: error: ")]
    assert len(errors) == 1 and (len(lines) == 1 or not alone), res.stderr
    for word in words:
        assert word in errors[0], errors[0]
    return errors[0]


def test_damaged_run_files_affect_only_their_own_run(campaign):
    runs, out = campaign / "runs", campaign.parent
    parquet = runs / "solo-r1" / "samples.parquet"
    parquet.write_bytes(parquet.read_bytes()[: parquet.stat().st_size // 2])      # truncated
    (runs / "solo-r2" / "meta.json").write_bytes(b"\x7fELF\x00garbage")            # garbage
    (runs / "same-core-r1" / "events.jsonl").write_bytes(b"{}\n\x00\x00\x00\n")     # garbage lines
    (runs / "same-core-r2" / "samples.parquet").unlink()                            # deleted
    damaged = {"solo-r1": "samples.parquet", "solo-r2": "meta.json", "same-core-r1": "events.jsonl",
               "same-core-r2": "samples.parquet"}
    # a file the run's manifest lists that changed is `damaged`; a meta.json that does not read, `corrupt`
    status = {run: "corrupt" if file == "meta.json" else "damaged" for run, file in damaged.items()}

    listed = xtalk("list", "--out", out)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    problems = re.sub(r"[│\s]+", " ", listed.stdout)  # the table's cells, wrapped: the first two runs in full
    assert "damaged: same-core-r1/events.jsonl: size changed" in problems and "2 more (xtalk show)" in problems
    shown = xtalk("show", "small", "--out", out)
    assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr
    left_out = " ".join(shown.stdout.split("Runs left out of the statistics")[1].split())
    for run, file in damaged.items():  # the table's rows: run │ config │ status │ file │ reason
        assert re.search(rf"{run} │ \S+ │ {status[run]} │ runs/{run}/{file} │", left_out), left_out
    one_error_line(xtalk("show", "small/solo-r2", "--out", out), 3, "runs/solo-r2/meta.json: not valid JSON")
    stats = {s["config_id"]: s for s in json.loads(xtalk("show", "small", "--out", out, "--json").stdout)["stats"]}
    assert stats["solo"]["runs"] == 1 and stats["same-core"]["runs"] == 1  # r3 of each: untouched

    report = xtalk("report", "small", "--out", out, "--no-plots")
    assert report.returncode == 0 and "Traceback" not in report.stderr, report.stderr
    warnings = json.loads((campaign / "report" / "report.json").read_text())["warnings"]
    for run, file in damaged.items():
        assert any(w["scope"] == run and f"runs/{run}/{file}" in w["message"] and "left out" in w["message"]
                   for w in warnings), (run, warnings)

    query = xtalk("query", "small", "SELECT run_id FROM samples GROUP BY 1 ORDER BY 1", "--out", out, "--csv")
    assert query.returncode == 0 and query.stdout.split() == ["run_id", "same-core-r3", "solo-r3"], query.stderr
    for run, file in damaged.items():
        assert f"run {run} left out: {status[run]}: runs/{run}/{file}" in query.stderr


def test_a_corrupt_campaign_is_listed_next_to_healthy_ones_and_never_replaced_by_them(campaign):
    out = campaign.parent
    broken = Path(shutil.copytree(campaign, out / "small-29990101-000000"))
    (broken / "campaign.json").write_text('{"schema_version": 2, "name": "sm')
    listed = xtalk("list", "--out", out)
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[1]: line for line in listed.stdout.splitlines() if "small-" in line}
    assert "corrupt: campaign.json: not valid JSON" in rows[broken.name] and "6/6/6" in rows[campaign.name]
    for ident in (broken.name, "small"):  # by id, and by name: the latest is the broken one
        one_error_line(xtalk("show", ident, "--out", out), 3, f"{broken}/campaign.json: not valid JSON")
    assert xtalk("show", campaign.name, "--out", out).returncode == 0


def test_show_of_no_such_campaign_names_the_newest_whatever_their_names(campaign, monkeypatch):
    out = campaign.parent
    older = [f"zz{i}-2020010{i}-000000" for i in range(1, 7)]  # last by name, first by time
    for name in older:
        shutil.copytree(campaign, out / name)
    newest = shutil.copytree(campaign, out / "aa-29990101-000000.10").name
    shutil.copytree(campaign, out / "aa-29990101-000000.9")
    res = xtalk("show", "nosuch", "--out", out)
    assert res.returncode == 2 and "no campaign 'nosuch'" in res.stderr, res.stderr
    listed = res.stderr.split("(the newest: ", 1)[1].split(")", 1)[0].split(", ")
    assert listed == [newest, "aa-29990101-000000.9", campaign.name, older[5], older[4]], res.stderr
    assert "(did you mean small?)" in xtalk("show", "smll", "--out", out).stderr
    monkeypatch.setenv("XTALK_OUT", str(out))  # the results directory without --out
    assert xtalk("show", "nosuch").stderr == res.stderr


def test_resume_of_a_changed_spec_names_what_changed(campaign, tmp_path):
    out = campaign.parent
    changed = small(tmp_path, duration=2, reps=3, iterations=30, placements='["solo", "other-core"]',
                    extra='[backend]\nkind = "native"\n')
    res = xtalk("run", changed, "--resume", "--out", out)
    assert res.returncode == 2 and (f"the spec changed since {campaign.name} was started (run.duration_s: 1 -> 2, measurer.iterations: "
            '20 -> 30, matrix.placement[1]: "same-core" -> "other-core" and 1 more)') in res.stderr, res.stderr
    same_values = xtalk("run", small(tmp_path, duration=2, reps=3), "--resume", "--out", out, "--set", "run.duration_s=1")
    assert "(its text only: comments, layout or the order of --set)" in same_values.stderr, same_values.stderr


def test_show_takes_a_path_and_a_campaign_whose_runs_all_fail_exits_3(tmp_path, stored):
    shown = xtalk("show", str(stored.resolve()), "--out", tmp_path)
    assert shown.returncode == 0 and "solo-r1" in shown.stdout, shown.stderr
    assert xtalk("show", f"{stored.resolve()}/same-core-r2").returncode == 0
    out = tmp_path / "out"
    # starve must be below threads (5): only the guest knows, at run time (spec check cannot)
    spec = small(tmp_path, duration=1).read_text().replace('"qsort"', '"sched_metric"').replace("size_kib = 256",
                                                                                             "starve = 9")
    res = xtalk("run", write_spec(tmp_path, spec), "--out", out)
    one_error_line(res, 3, "2 of 2 runs did not pass", "solo-r1 fail", alone=False)
    assert "badparam" in res.stderr + res.stdout
    shown = xtalk("show", "small", "--out", out)
    assert shown.returncode == 0 and "no statistics: no passing run has samples" in shown.stdout, shown.stderr


def test_query_errors_are_usage_errors_and_files_stay_closed(stored):
    out = stored.parent
    one_error_line(xtalk("query", "small", "SELEC 1", "--out", out), 2, "Parser Error", alone=False)
    one_error_line(xtalk("query", "small", "SELECT * FROM nosuchtable", "--out", out), 2, "nosuchtable", alone=False)
    passwd = "SELECT * FROM read_csv('/etc/passwd', header=false, sep=':')"
    one_error_line(xtalk("query", "small", passwd, "--out", out), 2, "/etc/passwd", "--allow-files")
    one_error_line(xtalk("query", "small", "SET enable_external_access = true", "--out", out), 2, "locked")
    allowed = xtalk("query", "small", passwd, "--out", out, "--allow-files", "--csv")
    assert allowed.returncode == 0 and "root" in allowed.stdout, allowed.stderr


@pytest.mark.parametrize("kind", ["binary", "latin-1", "/dev/zero", "/dev/urandom", "directory", "huge"])
def test_a_spec_that_is_not_a_small_text_file_is_refused_in_one_line(tmp_path, kind, native_bench):
    made = {
        "binary": lambda p: p.write_bytes(native_bench.read_bytes()),
        "latin-1": lambda p: p.write_bytes('name = "caf\xe9"\n'.encode("latin-1")),
        "directory": lambda p: p.mkdir(),
        "huge": lambda p: p.write_text("# a comment line\n" * 70_000),
    }
    path = Path(kind) if kind.startswith("/dev/") else tmp_path / "spec.toml"
    if kind in made:
        made[kind](path)
    why = {"binary": "binary file", "latin-1": "not UTF-8 text (byte 0xe9 at offset 11)",
           "directory": "a directory", "/dev/zero": "a device, not a campaign spec",
           "/dev/urandom": "a device, not a campaign spec"}.get(kind, "larger than 1 MiB")
    for command in (("run", path, "--out", tmp_path / "out"), ("spec", "check", path)):
        started = time.monotonic()
        one_error_line(xtalk(*command, timeout=30), 2, f"xtalk: error: {path}: ", why)
        assert time.monotonic() - started < 10
    assert not (tmp_path / "out").exists()


def test_report_compare_and_resume_on_a_read_only_results_directory_give_one_line(stored, mount, tmp_path):
    ro = mount("size=64m")
    copy = Path(shutil.copytree(stored, ro / stored.name))
    shutil.rmtree(copy / "runs" / "same-core-r3")  # so that --resume has a run to do
    spec = shutil.copy(copy / "spec.toml", tmp_path / "small.toml")
    subprocess.run(["mount", "-o", "remount,ro", str(ro)], check=True)
    assert xtalk("show", "small", "--out", ro).returncode == 0  # reading needs no writing
    one_error_line(xtalk("report", "small", "--out", ro), 3, "Read-only file system")
    one_error_line(xtalk("compare", "small", "small", "--out", ro), 3, "Read-only file system")
    one_error_line(xtalk("run", spec, "--resume", "--out", ro), 3, "Read-only file system")
    debug = xtalk("--debug", "report", "small", "--out", ro)
    assert debug.returncode == 3 and "Traceback" in debug.stderr
    assert debug.stderr.strip().splitlines()[-1].startswith("xtalk: error: ")


@pytest.mark.slow
def test_a_disk_filling_up_mid_campaign_stops_it_in_one_line_and_resume_finishes(tmp_path, mount, native_bench):
    disk = mount("size=16m")
    out, spec = disk / "out", small(tmp_path, duration=2, reps=2, iterations=0)
    proc = start("run", spec, "--out", out)
    try:
        wait_for(lambda: "same-core-r1" in started_runs(out), 30, "the second run")
        time.sleep(0.5)
        filler = fill(disk)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    res = subprocess.CompletedProcess(proc.args, proc.returncode, "", stderr)
    line = one_error_line(res, 3, "run same-core-r1: disk full: ", "No space left on device", "--resume",
                          alone=False)
    assert "solo-r2" not in stderr, line  # the campaign stopped there
    assert not any(alive(pid) for pid in guest_pids(out).values())
    assert run_meta(out, "solo-r1")["status"] == "pass"
    assert run_meta(out, "same-core-r1")["status"] in ("running", "error")  # its record, if the disk took it
    filler.unlink()
    resumed = xtalk("run", spec, "--resume", "--out", out, "--json")
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["passed"] == 4 and summary["skipped_resumed"] == ["solo-r1"], summary
    assert json.loads((campaign_dir(out) / "runs" / "same-core-r1.attempt1" / "meta.json").read_text())["status"] in (
        "interrupted", "error")


def test_a_report_on_a_full_disk_gives_one_line_and_no_truncated_file(stored, mount):
    full = mount("size=256k")
    fill(full)
    dest = full / "report"
    one_error_line(xtalk("report", str(stored), "--dest", dest), 3, "No space left on device")
    assert not [p for p in dest.rglob("*") if p.is_file()] if dest.exists() else True


@pytest.mark.parametrize("args", [("show",), ("show", "--json"), ("list",), ("query", "SELECT * FROM samples")])
def test_a_reader_that_goes_away_ends_xtalk_quietly_with_exit_0(stored, args):
    """`xtalk show ... | head -1`: a closed pipe is no failed KPI gate (exit 1) and no error.
    The pipe is closed before xtalk writes, so every write of it meets a reader gone."""
    from tests.framework.cli import XTALK
    name = [stored.name] if args[0] in ("show", "query") else []
    argv = [*XTALK, args[0], *name, *args[1:], "--out", str(stored.parent)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # as `| true` does; `| head -1` after its line
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0 and not err, err.decode()
