import os

from xtalk.host.shm import sweep_stale


def test_sweep_removes_only_files_of_dead_xtalk_processes(tmp_path):
    dead = 2 ** 22 + 12345  # above the largest pid_max Linux allows (2**22): no such process
    (tmp_path / f"xtalk-{dead}-solo-r1-measurer.ring").write_bytes(b"x")
    (tmp_path / f"xtalk-{dead}-same-core-r1").mkdir()
    (tmp_path / f"xtalk-{dead}-same-core-r1" / "measurer.ram").write_bytes(b"x")
    alive = tmp_path / f"xtalk-{os.getpid()}-solo-r1-measurer.ring"
    alive.write_bytes(b"x")
    other = tmp_path / "not-xtalk-1-file"
    other.write_bytes(b"x")
    removed = sweep_stale(tmp_path)
    assert sorted(removed) == sorted([f"xtalk-{dead}-solo-r1-measurer.ring", f"xtalk-{dead}-same-core-r1"])
    assert alive.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([alive.name, other.name])
