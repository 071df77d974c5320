"""The report's sections of a study of interference channels: a worst-case search's
outcome and the channels' multipliers (report/interference.py makes their tables), under
the answer, after the setup."""
from __future__ import annotations

from ..interference import channel_table, search_table
from . import add, rows, table

add("search", 50, table("search", "answer", ("search", "study"), search_table), rows("search"))
add("channels", 60, table("channels", "answer", ("channels", "study"), lambda res: channel_table(res["channels"])),
    rows("channels"))
