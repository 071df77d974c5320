"""Control bytes from guests and imported logs reach no terminal and no CSV (issue 58): an
imported log whose name carries escapes is shown by `xtalk show RUN` without them, and `query --csv`
writes each value on one printable line, quoted where it holds a comma."""
from __future__ import annotations

import csv
import io
import json
import shutil

from tests.framework.cli import xtalk
from tests.framework.repo import ROOT

LOG = ROOT / "tests" / "data" / "zephyr" / "thread_metric_preemptive-qemu_x86_64-tcg.log"
NASTY = "\x1b]0;owned\x07\x1b[2J\x9b31m\u202e\r"
UNSAFE = ("\x1b", "\x07", "\x9b", "\u202e", "\r")


def imported(tmp_path):
    log = tmp_path / f"evil{NASTY}.log"
    shutil.copy(LOG, log)
    out = tmp_path / "results"
    proc = xtalk("import", "tm", "--output", "zephyr-thread-metric", "--out", out, log)
    assert proc.returncode == 0, proc.stderr
    (campaign,) = [p for p in out.iterdir() if (p / "campaign.json").is_file()]
    return out, campaign


def test_show_run_prints_an_imported_logs_name_without_control_bytes(tmp_path):
    out, campaign = imported(tmp_path)
    (run_dir,) = (campaign / "runs").iterdir()
    assert NASTY in json.loads((run_dir / "meta.json").read_text())["imported_from"]  # the record keeps the truth
    shown = xtalk("show", f"{campaign.name}/{run_dir.name}", "--out", out)
    assert shown.returncode == 0, shown.stderr
    assert "status=pass" in shown.stdout.splitlines()[0] and "evil.log" in shown.stdout, shown.stdout
    assert not [c for c in UNSAFE if c in shown.stdout + shown.stderr], repr(shown.stdout)


def test_query_csv_writes_each_value_on_one_printable_line_and_quotes_commas(tmp_path):
    out, campaign = imported(tmp_path)
    sql = ("SELECT 'a' || chr(27) || '[2J' || chr(10) || 'b,c' || chr(13) || chr(8238) AS \"x" + "\x1b[1m" + "\", "
           "run_id AS f, NULL AS n FROM runs")
    proc = xtalk("query", campaign.name, sql, "--out", out, "--csv")
    assert proc.returncode == 0, proc.stderr
    assert not [c for c in UNSAFE if c in proc.stdout], repr(proc.stdout)
    rows = list(csv.reader(io.StringIO(proc.stdout)))
    assert rows[0] == ["x", "f", "n"] and len(rows) == 2, rows
    assert rows[1][0] == "a b,c" and rows[1][1] == "solo-r1" and rows[1][2] == "", rows
    assert proc.stdout.splitlines()[1].startswith('"a b,c",')
