"""The room lock of tests/framework/alone.py: a timing test holds it alone, others share it."""
from __future__ import annotations

import fcntl
import tempfile
import uuid
from pathlib import Path

import pytest

from tests.framework.alone import held_room, in_order


def can_take(run: str, mode: int) -> bool:
    with open(Path(tempfile.gettempdir()) / f"xtalk-tests-{run}" / "room", "a") as room:
        try:
            fcntl.flock(room, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(room, fcntl.LOCK_UN)
        return True


@pytest.mark.parametrize("alone", [True, False])
def test_a_timing_test_holds_the_room_alone_and_the_others_share_it(alone):
    run = uuid.uuid4().hex
    with held_room(run, alone=alone):
        assert can_take(run, fcntl.LOCK_SH) is not alone
        assert can_take(run, fcntl.LOCK_EX) is False
    assert can_take(run, fcntl.LOCK_EX)


class Item:
    """What in_order asks of a collected test: its markers."""

    def __init__(self, name: str, *marks: str) -> None:
        self.name, self.marks = name, set(marks)

    def get_closest_marker(self, mark: str):
        return mark if mark in self.marks else None


def test_alone_tests_of_no_lab_come_first_then_each_lab_group_with_its_boot_first():
    items = [Item("short"), Item("slow", "slow"), Item("smoke", "xen", "slow", "xdist_group"),
             Item("boot", "slow", "xdist_group"), Item("hog", "timing", "slow"), Item("fifo", "fifo")]
    assert [i.name for i in sorted(items, key=in_order)] == ["hog", "fifo", "boot", "smoke", "slow", "short"]
