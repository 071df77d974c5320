"""A measuring program that no one here wrote, as its console looks: a full-screen
bandwidth tool that draws with cursor addressing (ESC[row;colH), colours and carriage
returns, never sends a newline, and prints bandwidths in MB/s or GB/s as their size
asks. `SCREEN` is its console (two passes); `PARSER` the regex options that read it;
`EXPECTED` the samples they give, in MB/s. `image()` builds a 32-bit multiboot ELF (what
QEMU -M pc boots with -kernel, like Zephyr's qemu_x86_64 board) that writes SCREEN to
the first serial port and halts: nothing of xtalk's in it.
Used by tests/unit/parsers/test_screen.py and tests/integration/test_foreign_screen.py.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def _at(row: int, col: int, text: str) -> str:
    return f"\x1b[{row};{col}H{text}"


def _pass(number: int, caches: tuple[str, str, str], memory: str) -> str:
    l1, l2, l3 = caches
    return ("\x1b[2J\x1b[H" + _at(1, 1, "\x1b[1;37;44m BWBENCH 2.1  cache & memory bandwidth \x1b[0m")
            + _at(2, 1, f"pass {number} of 2") + _at(2, 60, "\x1b[32mrunning\x1b[0m")
            + _at(7, 1, "testing   0%\rtesting  50%\rtesting 100%\x1b[K")
            + _at(4, 1, "L1:") + _at(4, 6, l1) + _at(4, 24, "L2:") + _at(4, 29, l2) + _at(4, 47, "L3:") + _at(4, 52, l3)
            + _at(5, 1, "Memory:") + _at(5, 10, f"\x1b[33m{memory}\x1b[0m"))


# the last figure is the last thing drawn: no escape nor line end after it
SCREEN = (_pass(1, ("95.2 GB/s", "48.7 GB/s", "30.1 GB/s"), "9850 MB/s")
          + _pass(2, ("96.0 GB/s", "47.9 GB/s", "29.8 GB/s"), "12.3 GB/s")).encode()
PARSER = {"sample": r"(?P<metric>L[123]|Memory): +(?P<value>[\d.]+) (?P<unit>[KMG]B/s)",
          "unit": "MB/s", "metrics": ["L1", "L2", "L3", "Memory"]}
EXPECTED = [("L1", 95_200), ("L2", 48_700), ("L3", 30_100), ("Memory", 9_850),
            ("L1", 96_000), ("L2", 47_900), ("L3", 29_800), ("Memory", 12_300)]

PROGRAM = """
    .text
    .align 4
    .long 0x1BADB002, 0, -0x1BADB002    # multiboot header: magic, flags, checksum
    .globl _start
_start:
    mov $screen, %esi
1:  cmp $screen_end, %esi
    je 3f
    mov $0x3fd, %dx                      # COM1 line status: wait until it takes a byte
2:  inb %dx, %al
    test $0x20, %al
    jz 2b
    mov $0x3f8, %dx
    movb (%esi), %al
    outb %al, %dx
    inc %esi
    jmp 1b
3:  cli
    hlt
    jmp 3b
screen:
    .byte {bytes}
screen_end:
"""


def image(dest: Path) -> Path | None:
    """dest/bwbench.elf, writing SCREEN to COM1 (None without a gcc that assembles -m32)."""
    if shutil.which("gcc") is None:
        return None
    source, elf = dest / "bwbench.S", dest / "bwbench.elf"
    source.write_text(PROGRAM.format(bytes=", ".join(str(b) for b in SCREEN)))
    built = subprocess.run(["gcc", "-m32", "-nostdlib", "-static", "-no-pie", "-Wl,-Ttext=0x100000",
                            "-Wl,--build-id=none", "-Wl,-z,max-page-size=0x1000", "-o", str(elf), str(source)],
                           capture_output=True, text=True)
    return elf if built.returncode == 0 else None
