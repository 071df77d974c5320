"""backends/tsc.py: the TSC frequency is measured once per boot and program build, kept in
the cache directory; a rebuilt program or an unreadable cache is measured again."""
from __future__ import annotations

import json
import os

from xtalk.backends import tsc


def fake_probe(tmp_path, hz: int):
    """A program that prints the probe's BEGIN line with freq_hz= and counts its calls."""
    calls = tmp_path / "calls"
    probe = tmp_path / "xtalk-bench"
    probe.write_text(f"#!/bin/sh\necho x >> {calls}\necho 'XT BEGIN run=freq freq_hz={hz}'\n")
    probe.chmod(0o755)
    return probe, lambda: len(calls.read_text().splitlines()) if calls.exists() else 0


def test_measured_once_then_kept_for_the_boot(tmp_path, monkeypatch):
    monkeypatch.setenv("XTALK_CACHE", str(tmp_path / "cache"))
    probe, calls = fake_probe(tmp_path, 2_445_398_000)
    assert tsc.host_tsc_hz(probe) == 2_445_398_000 and calls() == 1
    assert tsc.host_tsc_hz(probe) == 2_445_398_000 and calls() == 1
    ((key, hz),) = json.loads((tmp_path / "cache" / tsc.CACHE_NAME).read_text()).items()
    assert hz == 2_445_398_000 and tsc.BOOT_ID.read_text().strip() in key and str(probe) in key


def test_a_rebuilt_program_or_a_broken_cache_is_measured_again(tmp_path, monkeypatch):
    monkeypatch.setenv("XTALK_CACHE", str(tmp_path / "cache"))
    probe, calls = fake_probe(tmp_path, 1_000_000_000)
    tsc.host_tsc_hz(probe)
    stat = probe.stat()
    os.utime(probe, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # rebuilt
    assert tsc.host_tsc_hz(probe) == 1_000_000_000 and calls() == 2
    (tmp_path / "cache" / tsc.CACHE_NAME).write_text("{not json")
    assert tsc.host_tsc_hz(probe) == 1_000_000_000 and calls() == 3
    assert tsc.host_tsc_hz(probe) == 1_000_000_000 and calls() == 3  # whole again


def test_a_cache_that_cannot_be_written_costs_only_the_measurement(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("XTALK_CACHE", str(tmp_path / "file" / "cache"))  # under a file: no directory
    probe, calls = fake_probe(tmp_path, 3_000_000_000)
    assert tsc.host_tsc_hz(probe) == 3_000_000_000 and tsc.host_tsc_hz(probe) == 3_000_000_000 and calls() == 2
