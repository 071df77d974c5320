"""The `ignore` output: a guest whose console says nothing xtalk reads (a foreign
stressor image). Its first line counts as its begin; it never fails by what it prints
(the stressor watch still sees it die, stop or stall); a measurer with it measures nothing.
"""
from __future__ import annotations

from typing import ClassVar

from ..plugins import PARSERS
from .base import Event, OutputParser


@PARSERS.register
class IgnoreParser(OutputParser):
    name: ClassVar[str] = "ignore"
    summary: ClassVar[str] = "read nothing (a stressor image whose output does not matter)"
    metric_names: ClassVar[tuple[str, ...] | None] = ()
    ends_itself: ClassVar[bool] = False

    def parse(self, line: str, now_ns: int) -> Event | None:
        return self.began(now_ns) if line.strip() else None
