"""Per-run files in /dev/shm (sample rings, guest RAM) are named xtalk-<pid>-...; an xtalk
killed with SIGKILL cannot remove its own, so every campaign start removes those whose
xtalk process is gone. Only names of that form are touched."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

SHM = Path("/dev/shm")
NAME = re.compile(r"^xtalk-(\d+)-")


def sweep_stale(root: Path = SHM) -> list[str]:
    removed = []
    for entry in root.glob("xtalk-*") if root.is_dir() else []:
        m = NAME.match(entry.name)
        if not m or Path(f"/proc/{m.group(1)}").exists():
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed.append(entry.name)
    return removed
