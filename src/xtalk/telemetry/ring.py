"""Host side of the sample ring: create it in a file and read it without stopping the guest.

The guest (or native program) is the only writer; the reader checks each slot's
sequence number, so overwritten (lost) samples are counted, never hidden. Two ways to
take new slots: read() copies them into a new array (one memcpy of plain 64-bit words:
numpy copies a structured dtype field by field, several times slower); move_to(store)
hands the ring's own memory to the store's append (RunWriter.append_slots: one write
from the ring to samples.bin, no copy in between: the live run's path, about half the
memory traffic); but where the writer is less than half a ring ahead of the slots to
take, move_to copies them first as read() does: a write to the file takes several times
longer than a memcpy, long enough for a writer that close to overwrite the whole batch
while it is written (then every batch after a lap was lost, until the writer stopped).
Either way the slots' seq fields are checked in the ring after they were taken: a writer stores a slot's seq first (guests/lib/ring.c), so a seq still right
then means the slot was whole while it was taken; a slot found rewritten is counted lost
and left out (move_to takes its batch back from the store and appends the whole slots
again). One take is at most MAX_BATCH slots (more says when more were waiting: take
again). Works on any file mapping: /dev/shm for native programs, a QEMU
memory-backend-file (at an offset) for guests. create_ring_file allocates the file's
pages at once, so a native writer's first lap takes no page allocation in its window.
Caveat: on a weakly ordered CPU (arm64) a slot's stores are ordered only by the guest's
barrier before write_seq, so the seq-first argument holds on x86 only.
"""
from __future__ import annotations

import mmap
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from ..results.schema import SAMPLE_DTYPE

MAGIC = b"XTRING01"
HEADER = struct.Struct("<8sIIQQQQQQ")  # magic, version, slot_size, capacity, write_seq, heartbeat, freq, 2x reserved
HEADER_SIZE = 64
VERSION = 1
WORDS_PER_SLOT = SAMPLE_DTYPE.itemsize // 8
MAX_BATCH = 1 << 18  # slots (8 MiB): reused by the allocator from one read to the next
PASS_RING_CAPACITY = 64  # a stressor's ring: only its header is read (write_seq = its passes, running/pressure.py)


def ring_bytes(capacity: int) -> int:
    return HEADER_SIZE + capacity * SAMPLE_DTYPE.itemsize


def init_ring(buf: memoryview | bytearray | mmap.mmap, offset: int, capacity: int) -> None:
    buf[offset:offset + HEADER_SIZE] = HEADER.pack(MAGIC, VERSION, SAMPLE_DTYPE.itemsize, capacity, 0, 0, 0, 0, 0)


def create_ring_file(path: Path, capacity: int) -> None:
    with open(path, "wb") as f:
        f.truncate(ring_bytes(capacity))
        try:  # its pages now, not at the writer's first touch of each (inside its measured window)
            os.posix_fallocate(f.fileno(), 0, ring_bytes(capacity))
        except OSError:  # a file system without it: the pages come as the writer touches them
            pass
        f.write(HEADER.pack(MAGIC, VERSION, SAMPLE_DTYPE.itemsize, capacity, 0, 0, 0, 0, 0))


@dataclass
class Batch:
    records: np.ndarray
    lost: int
    heartbeat: int
    more: bool = False  # slots were left for the next read (MAX_BATCH)


class SlotStore(Protocol):
    """Where move_to puts slots (results.store.RunWriter)."""
    sample_count: int

    def append_slots(self, parts: list[np.ndarray]) -> None: ...
    def cut_samples(self, count: int) -> None: ...
    def samples(self, records: np.ndarray) -> None: ...


@dataclass
class Moved:
    stored: int
    lost: int
    heartbeat: int
    more: bool = False  # slots were left for the next move (MAX_BATCH)


class RingReader:
    def __init__(self, path: Path, offset: int = 0):
        self._fd = os.open(path, os.O_RDONLY)
        size = os.fstat(self._fd).st_size
        self._map = mmap.mmap(self._fd, size, prot=mmap.PROT_READ)
        self.offset = offset
        magic, version, slot, capacity, *_ = HEADER.unpack_from(self._map, offset)
        if magic != MAGIC or version != VERSION or slot != SAMPLE_DTYPE.itemsize:
            raise ValueError(f"{path}: not an xtalk ring at offset {offset:#x}")
        self.capacity = capacity
        self._words = np.frombuffer(self._map, dtype=np.uint64, count=capacity * WORDS_PER_SLOT,
                                    offset=offset + HEADER_SIZE)
        self.next_seq = 0
        self.lost = 0

    def header(self) -> tuple[int, int, int]:
        """(write_seq, heartbeat, freq_hz) as the writer last published them."""
        _, _, _, _, write_seq, heartbeat, freq, *_ = HEADER.unpack_from(self._map, self.offset)
        return write_seq, heartbeat, freq

    def read(self) -> Batch:
        """The new slots (at most MAX_BATCH) as a new array."""
        write_seq, heartbeat, _ = self.header()
        start, end, lost = self._span(write_seq)
        if end <= start:
            return Batch(np.zeros(0, SAMPLE_DTYPE), lost, heartbeat)
        records, torn = self._whole_copy(start, end)
        return Batch(records, lost + torn, heartbeat, more=end < write_seq)

    def move_to(self, store: SlotStore) -> Moved:
        """The new slots (at most MAX_BATCH) appended to `store` from the ring's own memory."""
        write_seq, heartbeat, _ = self.header()
        start, end, lost = self._span(write_seq)
        if end <= start:
            return Moved(0, lost, heartbeat)
        before = store.sample_count
        if start + self.capacity - write_seq < self.capacity // 2:  # close behind the writer: copy first
            records, torn = self._whole_copy(start, end)
            store.samples(records)
            return Moved(store.sample_count - before, lost + torn, heartbeat, more=end < write_seq)
        store.append_slots(self._parts(start % self.capacity, end - start))
        if not self._intact(start, end):  # rare: the writer lapped us while they were written
            store.cut_samples(before)
            records, torn = self._whole_copy(start, end)
            store.samples(records)
            lost += torn
        return Moved(store.sample_count - before, lost, heartbeat, more=end < write_seq)

    def _span(self, write_seq: int) -> tuple[int, int, int]:
        """(first seq, end seq, lost) of the next take, which it counts as taken: what the
        writer lapped is lost."""
        start, lost = self.next_seq, 0
        if write_seq - start > self.capacity:  # the writer lapped us
            lost = write_seq - self.capacity - start
            start = write_seq - self.capacity
        end = min(write_seq, start + MAX_BATCH) if write_seq > start else start
        self.lost += lost
        self.next_seq = max(self.next_seq, end)
        return start, end, lost

    def _parts(self, first: int, n: int) -> list[np.ndarray]:
        """Slots first.. (n of them) as views of the ring's words: one, or two where they wrap."""
        head = min(n, self.capacity - first)
        parts = [self._words[first * WORDS_PER_SLOT:(first + head) * WORDS_PER_SLOT]]
        return parts + [self._words[:(n - head) * WORDS_PER_SLOT]] if n > head else parts

    def _whole_copy(self, start: int, end: int) -> tuple[np.ndarray, int]:
        """The slots of seqs start..end-1 copied, then checked in the ring: those still
        whole, and how many were not (counted lost)."""
        records = self._copy(start % self.capacity, end - start)
        if self._intact(start, end):
            return records, 0
        seqs = np.concatenate([part[::WORDS_PER_SLOT] for part in self._parts(start % self.capacity, end - start)])
        good = seqs == np.arange(start, end, dtype=np.uint64)
        torn = int((~good).sum())
        self.lost += torn
        return records[good], torn

    def _intact(self, start: int, end: int) -> bool:
        """Every slot of seqs start..end-1 still holds its seq in the ring."""
        parts = self._parts(start % self.capacity, end - start)
        return all(self._consecutive(part[::WORDS_PER_SLOT], first)
                   for part, first in zip(parts, (start, start + len(parts[0]) // WORDS_PER_SLOT)))

    @staticmethod
    def _consecutive(seqs: np.ndarray, start: int) -> bool:
        """seqs == start, start + 1, ...: n increasing integers from start to start + n - 1 are
        exactly those (one comparison pass, no arange to build: the common case)."""
        return bool(seqs[0] == start and seqs[-1] == start + len(seqs) - 1 and (seqs[1:] > seqs[:-1]).all())

    def _copy(self, first: int, n: int) -> np.ndarray:
        """Slots first.. (n of them, wrapping at the end of the ring) as a new array."""
        records = np.empty(n, SAMPLE_DTYPE)
        out, at = records.view(np.uint64), 0
        for part in self._parts(first, n):
            out[at:at + len(part)] = part
            at += len(part)
        return records

    def close(self) -> None:
        self._words = None  # release the buffer export before closing the map
        try:
            self._map.close()
        except BufferError:
            pass
        os.close(self._fd)
