"""Files a user can plant where xtalk reads one whole (issue 58's hangs): a FIFO as the
spec, as a run's meta.json or as a search's settings, and a run's events.jsonl made a link
to /dev/zero. Each is refused at once, naming the file and what it is; none hangs (each
command is given 60 s, where the old reads waited for a writer, or hashed forever)."""
from __future__ import annotations

import os

from tests.framework.cli import campaign_dir, small, xtalk
from xtalk.files import NotRegular, read_regular
from xtalk.search import journal


def test_a_fifo_as_the_spec_is_refused_naming_it(tmp_path):
    os.mkfifo(tmp_path / "spec.toml")
    res = xtalk("spec", "check", tmp_path / "spec.toml", timeout=60)
    assert res.returncode == 2 and f"{tmp_path / 'spec.toml'}: a FIFO, not a campaign spec" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr


def test_a_fifo_or_a_device_planted_in_a_stored_run_is_named_not_read(tmp_path, native_bench):
    spec = small(tmp_path, duration=0.3, reps=1, iterations=0, placements='["solo"]')
    assert xtalk("run", spec, "--out", tmp_path / "out").returncode == 0
    run = campaign_dir(tmp_path / "out") / "runs" / "solo-r1"
    events = run / "events.jsonl"
    events.unlink()
    events.symlink_to("/dev/zero")
    res = xtalk("show", campaign_dir(tmp_path / "out").name, "--out", tmp_path / "out", "--verify", timeout=60)
    assert res.returncode != 0 and "Traceback" not in res.stderr, res.stderr
    assert "events.jsonl" in res.stdout + res.stderr
    (run / "meta.json").unlink()
    os.mkfifo(run / "meta.json")
    res = xtalk("list", "--out", tmp_path / "out", timeout=60)
    assert "Traceback" not in res.stderr, res.stderr
    assert "FIFO" in res.stdout + res.stderr, res.stdout + res.stderr


def test_a_fifo_as_the_search_settings_is_named(tmp_path):
    os.mkfifo(tmp_path / journal.SETTINGS)
    try:
        journal.read_settings(tmp_path)
    except Exception as err:  # noqa: BLE001 - what it says is the test
        assert "a FIFO, not a regular file" in str(err) and journal.SETTINGS in str(err), err
    else:
        raise AssertionError("a FIFO as the search's settings was read")
    try:
        read_regular("/dev/zero")
    except NotRegular as err:
        assert err.kind == "a device"
    else:
        raise AssertionError("/dev/zero was read")
