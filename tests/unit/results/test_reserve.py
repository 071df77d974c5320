"""samples.bin's disk blocks reserved ahead of its appends (results/reserve.py), through
the RunWriter: the file's size is always exactly the samples written, the reservation
is there while the run writes and given back when it closes."""
import os

import numpy as np

from xtalk.results import reserve
from xtalk.results.schema import SAMPLE_DTYPE
from xtalk.results.store import RunWriter


def samples(start, n):
    records = np.zeros(n, SAMPLE_DTYPE)
    records["seq"] = np.arange(start, start + n)
    records["value"] = 7 * records["seq"]
    return records


def allocated(path):
    return os.stat(path).st_blocks * 512


def test_the_size_is_the_samples_and_the_reservation_goes_at_close(tmp_path):
    writer = RunWriter(tmp_path, {"run_id": "r", "config_id": "c", "attempt": 1})
    path = tmp_path / "samples.bin"
    writer.samples(samples(0, 1000))
    writer.samples(samples(1000, 24))
    assert path.stat().st_size == 1024 * SAMPLE_DTYPE.itemsize  # a recovery after a kill reads just these
    if writer._reserve.active:  # fallocate works on this file system
        assert allocated(path) >= reserve.CHUNK
    writer.close()
    assert allocated(path) < reserve.CHUNK
    stored = np.fromfile(path, SAMPLE_DTYPE)
    assert (stored == samples(0, 1024)).all()


def test_appends_larger_than_a_chunk_are_reserved_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(reserve, "CHUNK", 4096)
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    ahead = reserve.Reserve(fd)
    for n in (100, 10_000, 50):
        ahead.append(n)
        os.write(fd, b"x" * n)
        assert ahead.size == os.fstat(fd).st_size
        assert not ahead.active or ahead.reserved >= ahead.size
    ahead.trim()
    assert os.fstat(fd).st_size == 10_150 and allocated(tmp_path / "f") < 10_150 + 4096 + 4096
    os.close(fd)


def test_a_run_killed_before_close_has_its_reservation_freed_when_finalised(tmp_path):
    """A SIGKILL before close() left 64 MiB reserved past samples.bin's end (the adversarial
    probe: 323 MB for 12 small campaigns); finalize_run, which the recovery of the run as
    interrupted calls, frees them and keeps every sample."""
    from xtalk.results.finalize import finalize_run
    writer = RunWriter(tmp_path, {"run_id": "r", "config_id": "c", "attempt": 1})
    writer.samples(samples(0, 100))
    if not writer._reserve.active:
        import pytest
        pytest.skip("fallocate does not reserve on this file system: nothing to free")
    path = tmp_path / "samples.bin"
    assert allocated(path) >= reserve.CHUNK  # as a kill leaves it: close() never ran
    facts = finalize_run(tmp_path, {"run_id": "r", "config_id": "c", "attempt": 1, "metrics": {}, "freq_hz": 1e9})
    assert allocated(path) < reserve.CHUNK and facts["sample_count"] == 100
    assert (np.fromfile(path, SAMPLE_DTYPE) == samples(0, 100)).all()



def test_nothing_is_reserved_on_tmpfs_where_appends_allocate_the_pages_themselves():
    import tempfile
    with tempfile.TemporaryDirectory(dir="/dev/shm") as shm:
        fd = os.open(os.path.join(shm, "f"), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        assert reserve.on_tmpfs(fd) and not reserve.Reserve(fd).active
        os.close(fd)
    fd = os.open("/proc/self/stat", os.O_RDONLY)  # procfs: not tmpfs
    assert not reserve.on_tmpfs(fd)
    os.close(fd)


def test_samples_cut_back_are_gone_and_the_next_appends_follow_them(tmp_path):
    writer = RunWriter(tmp_path, {"run_id": "r", "config_id": "c", "attempt": 1})
    writer.samples(samples(0, 100))
    writer.cut_samples(40)
    assert writer.sample_count == 40 and (tmp_path / "samples.bin").stat().st_size == 40 * SAMPLE_DTYPE.itemsize
    writer.samples(samples(40, 10))
    writer.close()
    assert (np.fromfile(tmp_path / "samples.bin", SAMPLE_DTYPE) == samples(0, 50)).all()
