"""The ring reader against a Python writer that follows docs/protocol.md."""
import struct

import numpy as np
import pytest

from xtalk.results.schema import SAMPLE_DTYPE
from xtalk.telemetry.ring import HEADER_SIZE, RingReader, create_ring_file


class Writer:
    def __init__(self, path, capacity):
        self.f = open(path, "r+b")
        self.capacity, self.seq = capacity, 0

    def write(self, n, metric=0):
        for _ in range(n):
            slot = self.seq % self.capacity
            self.f.seek(HEADER_SIZE + slot * 32)
            self.f.write(struct.pack("<QQQII", self.seq, 1000 + self.seq, 7 * self.seq, metric, 0))
            self.seq += 1
        self.f.seek(24)
        self.f.write(struct.pack("<QQ", self.seq, 1000 + self.seq - 1))
        self.f.flush()


@pytest.fixture
def ring(tmp_path):
    """An 8-slot ring file with a Writer and a RingReader on it: (path, writer, reader)."""
    path = tmp_path / "ring"
    create_ring_file(path, 8)
    writer, reader = Writer(path, 8), RingReader(path)
    yield path, writer, reader
    reader.close()
    writer.f.close()


def test_reads_in_order_across_wraparound(ring):
    _, writer, reader = ring
    got = []
    for chunk in (5, 6, 7):
        writer.write(chunk)
        batch = reader.read()
        assert batch.lost == 0
        got.append(batch.records)
    records = np.concatenate(got)
    assert records["seq"].tolist() == list(range(18))
    assert records["value"].tolist() == [7 * i for i in range(18)]
    assert reader.read().records.size == 0


def test_lapped_reader_counts_losses(ring):
    _, writer, reader = ring
    writer.write(20)
    batch = reader.read()
    assert batch.lost == 12 and reader.lost == 12
    assert batch.records["seq"].tolist() == list(range(12, 20))
    assert batch.heartbeat == 1019


def test_torn_slot_is_counted_not_returned(ring):
    path, writer, reader = ring
    writer.write(4)
    with open(path, "r+b") as f:  # slot 2 being overwritten by a later lap
        f.seek(HEADER_SIZE + 2 * 32)
        f.write(struct.pack("<Q", 10))
    batch = reader.read()
    assert batch.records["seq"].tolist() == [0, 1, 3] and batch.lost == 1


def test_rejects_a_file_that_is_not_a_ring(tmp_path):
    path = tmp_path / "junk"
    path.write_bytes(b"\0" * 4096)
    try:
        RingReader(path)
    except ValueError as err:
        assert "not an xtalk ring" in str(err)
    else:
        raise AssertionError("accepted a non-ring file")
    assert SAMPLE_DTYPE.itemsize == 32


def test_an_overwritten_last_slot_is_counted_though_seqs_still_increase(ring):
    path, writer, reader = ring
    writer.write(4)
    with open(path, "r+b") as f:  # slot 3 rewritten by the next lap: seqs 0, 1, 2, 11 still increase
        f.seek(HEADER_SIZE + 3 * 32)
        f.write(struct.pack("<Q", 11))
    batch = reader.read()
    assert batch.records["seq"].tolist() == [0, 1, 2] and batch.lost == 1


def test_records_are_the_slots_field_by_field(ring):
    _, writer, reader = ring
    writer.write(3, metric=5)
    rec = reader.read().records
    assert rec.dtype == SAMPLE_DTYPE and rec.flags["C_CONTIGUOUS"] and rec.flags["OWNDATA"]
    assert rec["t"].tolist() == [1000, 1001, 1002] and rec["metric"].tolist() == [5, 5, 5]


def test_a_read_takes_at_most_max_batch_slots_and_says_more_are_waiting(tmp_path, monkeypatch):
    monkeypatch.setattr("xtalk.telemetry.ring.MAX_BATCH", 3)
    path = tmp_path / "ring"
    create_ring_file(path, 8)
    writer, reader = Writer(path, 8), RingReader(path)
    writer.write(7)
    batches = [reader.read() for _ in range(3)]
    assert [b.records["seq"].tolist() for b in batches] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.more for b in batches] == [True, True, False] and reader.lost == 0
    reader.close()
    writer.f.close()
