"""Host side of the sample ring: create it in a file and read it without stopping the guest.

The guest (or native program) is the only writer; this reader copies new slots with
numpy and checks each slot's sequence number, so overwritten (lost) samples are
counted, never hidden. The copy moves the slots as plain 64-bit words (one memcpy):
numpy copies a structured dtype field by field, several times slower. One read copies
at most MAX_BATCH slots (Batch.more says when more were waiting: read again): a larger
array is a fresh mapping whose first touch page-faults, several times slower again.
Works on any file mapping: /dev/shm for native programs, a QEMU memory-backend-file (at
an offset) for guests.
Caveat: a slot being rewritten while copied is caught by its seq check and counted lost.
"""
from __future__ import annotations

import mmap
import os
import struct
from dataclasses import dataclass
from pathlib import Path

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
        f.seek(0)
        f.write(HEADER.pack(MAGIC, VERSION, SAMPLE_DTYPE.itemsize, capacity, 0, 0, 0, 0, 0))


@dataclass
class Batch:
    records: np.ndarray
    lost: int
    heartbeat: int
    more: bool = False  # slots were left for the next read (MAX_BATCH)


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
        write_seq, heartbeat, _ = self.header()
        start = self.next_seq
        lost = 0
        if write_seq - start > self.capacity:  # the writer lapped us
            lost = write_seq - self.capacity - start
            start = write_seq - self.capacity
        if write_seq <= start:
            self.lost += lost
            self.next_seq = max(self.next_seq, write_seq)
            return Batch(np.zeros(0, SAMPLE_DTYPE), lost, heartbeat)
        end = min(write_seq, start + MAX_BATCH)
        records = self._copy(start % self.capacity, end - start)
        if not self._consecutive(records["seq"], start):
            good = records["seq"] == np.arange(start, end, dtype=np.uint64)
            lost += int((~good).sum())
            records = records[good]
        self.lost += lost
        self.next_seq = end
        return Batch(records, lost, heartbeat, more=end < write_seq)

    @staticmethod
    def _consecutive(seqs: np.ndarray, start: int) -> bool:
        """seqs == start, start + 1, ...: n increasing integers from start to start + n - 1 are
        exactly those (one comparison pass, no arange to build: the common case)."""
        return bool(seqs[0] == start and seqs[-1] == start + len(seqs) - 1 and (seqs[1:] > seqs[:-1]).all())

    def _copy(self, first: int, n: int) -> np.ndarray:
        """Slots first.. (n of them, wrapping at the end of the ring) as a new array."""
        records = np.empty(n, SAMPLE_DTYPE)
        out, head = records.view(np.uint64), min(n, self.capacity - first)
        out[:head * WORDS_PER_SLOT] = self._words[first * WORDS_PER_SLOT:(first + head) * WORDS_PER_SLOT]
        out[head * WORDS_PER_SLOT:] = self._words[:(n - head) * WORDS_PER_SLOT]
        return records

    def close(self) -> None:
        self._words = None  # release the buffer export before closing the map
        try:
            self._map.close()
        except BufferError:
            pass
        os.close(self._fd)
