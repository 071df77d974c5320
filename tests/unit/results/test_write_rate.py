"""The rate at which a file system takes samples.bin's appends (results/write_rate.py): measured
by a real timed append in the directory, once per file system, leaving nothing behind."""
import os

from xtalk.results import write_rate


def test_the_rate_is_measured_once_per_file_system_and_leaves_no_file(tmp_path, monkeypatch):
    monkeypatch.setattr(write_rate, "PROBE_BYTES", 1 << 20)
    monkeypatch.setattr(write_rate, "_measured", {})
    rate = write_rate.sample_write_rate(tmp_path)
    assert 1e4 < rate < 1e11 and os.listdir(tmp_path) == []  # samples/s: between 0.3 MB/s and 3 TB/s
    (tmp_path / "sub").mkdir()
    assert write_rate.sample_write_rate(tmp_path / "sub") == rate  # the same file system: not measured again
    assert list(write_rate._measured) == [os.stat(tmp_path).st_dev]


def test_a_results_directory_not_made_yet_is_measured_where_it_will_be(tmp_path):
    assert write_rate.existing(tmp_path / "out" / "campaign") == tmp_path
