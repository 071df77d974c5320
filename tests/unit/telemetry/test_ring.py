"""The ring reader against a Python writer that follows docs/protocol.md: read() copies, move_to()
appends straight from the ring to a RunWriter."""
import struct

import numpy as np
import pytest

from xtalk.results.schema import SAMPLE_DTYPE
from xtalk.results.store import RunWriter
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


class Lapping(RunWriter):
    """A RunWriter whose append is overtaken by the guest: `rewrite` runs right after the
    slots were written, as a writer lapping the reader would (seq fields rewritten)."""

    def __init__(self, path, rewrite):
        super().__init__(path, {"run_id": "r", "config_id": "c", "attempt": 1})
        self.rewrite = rewrite

    def append_slots(self, parts):
        super().append_slots(parts)
        self.rewrite()
        self.rewrite = lambda: None


def stored(run_dir):
    return np.fromfile(run_dir / "samples.bin", SAMPLE_DTYPE)


class Copies(RunWriter):
    """A RunWriter that notes the records it was given as a copy (samples()), not as ring memory."""

    def __init__(self, path):
        super().__init__(path, {"run_id": "r", "config_id": "c", "attempt": 1})
        self.copies = 0

    def samples(self, records):
        self.copies += 1
        super().samples(records)


def test_move_to_appends_the_slots_straight_from_the_ring_across_wraparound(ring, tmp_path):
    _, writer, reader = ring
    store = Copies(tmp_path / "run")
    for chunk in (3, 4, 4, 3):  # the third wraps around the 8 slots; the writer never half a ring ahead
        writer.write(chunk)
        moved = reader.move_to(store)
        assert (moved.stored, moved.lost, moved.more) == (chunk, 0, False)
    assert reader.move_to(store).stored == 0 and store.sample_count == 14 and store.copies == 0
    store.close()
    records = stored(tmp_path / "run")
    assert records["seq"].tolist() == list(range(14)) and records["value"].tolist() == [7 * i for i in range(14)]
    assert records["t"].tolist() == [1000 + i for i in range(14)]


def overwrite_seq(path, slot: int) -> None:
    """The writer rewriting `slot`'s seq (as a lap does) while the reader works."""
    with open(path, "r+b") as f:
        f.seek(HEADER_SIZE + slot * 32)
        f.write(struct.pack("<Q", 10))


def test_a_slot_rewritten_while_moved_is_taken_back_and_counted_lost(ring, tmp_path):
    path, writer, reader = ring
    writer.write(4)

    store = Lapping(tmp_path / "run", lambda: overwrite_seq(path, 2))
    moved = reader.move_to(store)
    assert (moved.stored, moved.lost) == (3, 1) and reader.lost == 1 and store.sample_count == 3
    writer.write(1)  # seq 4: appended after the three whole ones
    assert reader.move_to(store).stored == 1
    store.close()
    assert stored(tmp_path / "run")["seq"].tolist() == [0, 1, 3, 4]


def test_move_to_counts_what_the_writer_lapped_and_takes_at_most_max_batch(tmp_path, monkeypatch):
    monkeypatch.setattr("xtalk.telemetry.ring.MAX_BATCH", 3)
    path = tmp_path / "ring"
    create_ring_file(path, 8)
    writer, reader = Writer(path, 8), RingReader(path)
    store = RunWriter(tmp_path / "run", {"run_id": "r", "config_id": "c", "attempt": 1})
    writer.write(12)  # seqs 0-3 overwritten
    moves = [reader.move_to(store) for _ in range(3)]
    assert [(m.stored, m.lost, m.more) for m in moves] == [(3, 4, True), (3, 0, True), (2, 0, False)]
    store.close()
    assert stored(tmp_path / "run")["seq"].tolist() == list(range(4, 12)) and moves[0].heartbeat == 1011
    reader.close()
    writer.f.close()


def test_a_ring_file_has_its_pages_at_once(tmp_path):
    path = tmp_path / "ring"
    create_ring_file(path, 1 << 12)  # 128 KiB of slots
    assert path.stat().st_size == HEADER_SIZE + (1 << 12) * 32
    assert path.stat().st_blocks * 512 >= path.stat().st_size  # allocated, not a sparse file


def test_slots_close_behind_the_writer_are_copied_before_they_are_stored(ring, tmp_path):
    """Six of 8 slots waiting: the writer is 2 slots from the first, less than half a ring:
    the slots are copied and checked first, so a rewrite while the store writes them costs
    nothing (moved straight, the same rewrite costs one: the test above)."""
    path, writer, reader = ring
    writer.write(6)

    store = Lapping(tmp_path / "run", lambda: overwrite_seq(path, 2))
    moved = reader.move_to(store)
    assert (moved.stored, moved.lost) == (6, 0) and reader.lost == 0
    store.close()
    assert stored(tmp_path / "run")["seq"].tolist() == list(range(6))
