"""A guest's console bytes as the lines a parser reads, the way the screen shows them.

A line ends at a newline, at a carriage return, and at a cursor move to another place
of the screen: CSI row;col H or f (cursor addressing: full-screen test programs, RTOS
shells and BIOS-style menus draw with it and may never send a newline) and the CSI moves
up, down, to the next or previous line or to a row (A, B, E, F, d). A move further right
on the same row (H/f to a later column, C forward, G to a later column) is the next
field of that row: a space. Every other escape (colours, erase, modes, ESC c) is
dropped, and so are control characters other than tab. Blank lines are not passed on.

A screen (a console that used cursor addressing) is a picture: what it drew last stays
on the screen without a line end, so `settled()` hands out that text once the console
has been quiet for SETTLE_NS. A plain console's unfinished line waits for its newline
(a guest descheduled in the middle of a line must not have it cut).
Caveats: no terminal is emulated: text overwritten on the screen reaches the parser in
the order it was written, and a row is read left to right only as it was drawn.
"""
from __future__ import annotations

import codecs
import re

SETTLE_NS = 500_000_000
TOKEN = re.compile(
    r"\x1b\[(?P<params>[0-?]*)[ -/]*(?P<final>[@-~])"  # CSI
    r"|(?P<unfinished>\x1b(?:\[[0-?]*[ -/]*|[ -/]*)\Z)"  # an escape cut by the end of a read
    r"|(?P<esc>\x1b[ -/]*[0-Z\\-~])"                     # other escapes (ESC c, ESC 7, charset)
    r"|(?P<end>\r\n?|\n)"
    r"|(?P<text>[^\x1b\r\n]+)"
    r"|\x1b")                                            # a stray ESC: dropped
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
CONTROL_BYTES = bytes(range(0x09)) + bytes(range(0x0b, 0x20)) + b"\x7f"  # the same, as UTF-8 bytes (one each)
VERTICAL = frozenset("ABEFd")


def _numbers(params: str) -> list[int]:
    return [int(p) if p.isdigit() else 0 for p in params.split(";")]


class ConsoleLines:
    """One console's lines: feed() bytes as they arrive, take what it returns."""

    def __init__(self) -> None:
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._held = ""        # an escape sequence cut by the end of a read
        self._text: list[str] = []
        self._row: int | None = None
        self._col = 1
        self.screen = False    # cursor addressing seen: a picture, not a stream of lines
        self.received = 0      # bytes so far
        self.last_line = ""    # the latest line handed out
        self._arrived_ns = 0

    def feed(self, data: bytes, now_ns: int = 0) -> list[str]:
        """The lines `data` completed."""
        self.received += len(data)
        self._arrived_ns = now_ns
        if not self._held and b"\x1b" not in data:
            lines = data.replace(b"\r\n", b"\n") if b"\r" in data else data  # a serial console's CR LF: one end
            if b"\r" not in lines:
                # plain lines: the controls dropped from the bytes (a control character is one
                # byte of UTF-8, never part of another character's), ~7 times faster than by regex
                return self._plain(self._decode.decode(lines.translate(None, CONTROL_BYTES)))
        return self.feed_text(self._decode.decode(data))


    def feed_text(self, text: str) -> list[str]:
        text, self._held = self._held + text, ""
        if "\x1b" not in text and "\r" not in text:  # plain lines (XT): the fast way
            return self._plain(CONTROLS.sub("", text))
        out: list[str] = []
        for m in TOKEN.finditer(text):
            if m["text"] is not None:
                self._write(m["text"])
            elif m["final"] is not None:
                self._csi(m["params"], m["final"], out)
            elif m["end"] is not None:
                self._end_line(out)
                self._row = None if self._row is None else self._row + 1
                self._col = 1
            elif m["unfinished"] is not None:
                self._held = m["unfinished"]
        return out

    def _plain(self, text: str) -> list[str]:
        """The lines of `text`, which holds no escape, carriage return or other control."""
        out: list[str] = []
        *done, rest = text.split("\n")
        if done:
            self._text.append(done[0])
            self._end_line(out)
            out += [line for line in map(str.rstrip, done[1:]) if line]
            self.last_line = out[-1] if out else self.last_line
            self._row = None if self._row is None else self._row + len(done)
            self._col = 1
        self._text.append(rest)
        self._col += len(rest)
        return out

    def flush(self) -> list[str]:

        """The unfinished line, if any (the console is done)."""
        out: list[str] = []
        self._end_line(out)
        return out

    def settled(self, now_ns: int) -> list[str]:
        """A screen's last drawn text once it has been quiet for SETTLE_NS."""
        return self.flush() if self.screen and now_ns - self._arrived_ns >= SETTLE_NS else []

    @property
    def last_text(self) -> str:
        """What the console showed last: its unfinished text, else its last line."""
        return "".join(self._text).strip() or self.last_line

    def _write(self, text: str) -> None:
        text = CONTROLS.sub("", text)
        self._text.append(text)
        self._col += len(text)

    def _csi(self, params: str, final: str, out: list[str]) -> None:
        numbers = _numbers(params)
        if final in "Hf":
            self.screen = True
            row, col = (numbers + [0, 0])[:2]
            self._move(max(row, 1), max(col, 1), out)
        elif final == "G":
            self._move(self._row, max(numbers[0], 1), out)
        elif final == "C":
            self._move(self._row, self._col + max(numbers[0], 1), out)
        elif final in VERTICAL:
            self._end_line(out)
            self._row = None

    def _move(self, row: int | None, col: int, out: list[str]) -> None:
        if row == self._row and col > self._col:
            self._text.append(" ")
        else:
            self._end_line(out)
        self._row, self._col = row, col

    def _end_line(self, out: list[str]) -> None:
        line = "".join(self._text).rstrip()
        self._text.clear()
        if line:
            out.append(line)
            self.last_line = line


def console_lines(text: str) -> list[str]:
    """Every line of a whole console log (its unfinished last line included)."""
    lines = ConsoleLines()
    return lines.feed_text(text) + lines.flush()
