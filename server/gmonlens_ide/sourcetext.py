"""Source text as LSP sees it: lines end only at "\\n", "\\r\\n" and "\\r" (str.splitlines also
splits at form feeds, \\v, \\x1c-\\x1e, \\x85, \\u2028 and \\u2029, which moves every later line);
characters are counted in UTF-16 code units. Files are read with `userfiles` (regular files, capped).
`LineLocator` finds single lines of a large text without splitting all of it.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left
from functools import lru_cache

from gmonlens.common.errors import GmonlensError

from .userfiles import SOURCE_CAP, read_text

_EOL = re.compile(r"\r\n|\r|\n")


def lsp_lines(text: str) -> list[str]:
    """`text` split into LSP lines (without their ends)."""
    return _EOL.split(text)


class LineLocator:
    """Line `i` (0-based LSP line, without its end) of one text, without splitting the whole text:
    newlines are counted per chunk (str.count, C speed) as far as the lines asked for, and a line
    is cut out of its chunk. On SQLite's 9 MB sqlite3.c: about 5 ms for the last line, against
    30-50 ms for splitting it all. A text with a lone "\\r" (a line end of its own) is split whole."""

    __slots__ = ("_chunk", "_counts", "_split", "text")

    def __init__(self, text: str, chunk: int = 1 << 14) -> None:
        self.text = text  # the locator answers for this very string (callers compare with `is`)
        self._chunk = chunk
        self._counts = [0]  # _counts[k] = number of "\\n" in text[: k * chunk]
        lone_cr = "\r" in text and text.count("\r") != text.count("\r\n")
        self._split: list[str] | None = lsp_lines(text) if lone_cr else None

    def line(self, i: int) -> str:
        """Text of 0-based line `i` ("" past the end)."""
        if self._split is not None:
            return self._split[i] if 0 <= i < len(self._split) else ""
        start = self.start(i)
        if start < 0:
            return ""
        end = self.text.find("\n", start)
        out = self.text[start:] if end < 0 else self.text[start:end]
        return out[:-1] if out.endswith("\r") else out

    def start(self, i: int) -> int:
        """Offset in the text where 0-based line `i` starts (-1 past the end or before the start)."""
        if i < 0:
            return -1
        if self._split is not None:  # lone \r: add up the split lines and their ends
            if i >= len(self._split):
                return -1
            pos = 0
            for k in range(i):
                pos += len(self._split[k])
                pos += 2 if self.text.startswith("\r\n", pos) else 1
            return pos
        text, chunk, counts = self.text, self._chunk, self._counts
        while counts[-1] < i and (len(counts) - 1) * chunk < len(text):  # count on to line i's start
            k = len(counts) - 1
            counts.append(counts[-1] + text.count("\n", k * chunk, (k + 1) * chunk))
        if counts[-1] < i:
            return -1  # past the last line
        if i == 0:
            return 0
        k = bisect_left(counts, i) - 1  # the i-th newline lies in chunk k: counts[k] < i <= counts[k + 1]
        pos = k * chunk - 1
        for _ in range(i - counts[k]):
            pos = text.find("\n", pos + 1)
        return pos + 1

    def offset(self, line: int, character: int) -> int:
        """Offset of an LSP position (UTF-16 `character`), as the specification says: a character
        past the line's end is its end, a line past the last is the end of the text."""
        start = self.start(line)
        if start < 0:
            return 0 if line < 0 else len(self.text)
        return start + index_of_utf16(self.line(line), character)


@lru_cache(maxsize=8)
@lru_cache(maxsize=64)
def _file_lines(path: str, stamp: tuple[int, int]) -> tuple[str, ...]:
    try:
        return tuple(lsp_lines(read_text(path, SOURCE_CAP, "source file")))
    except (GmonlensError, OSError):
        return ()


def file_lines(path: str) -> tuple[str, ...]:
    """The LSP lines of the file at `path` on disk (() when it is missing or not a regular file)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return ()
    return _file_lines(path, (st.st_size, st.st_mtime_ns))


@lru_cache(maxsize=8)
def _file_locator(path: str, stamp: tuple[int, int]) -> LineLocator:
    try:
        return LineLocator(read_text(path, SOURCE_CAP, "source file"))
    except (GmonlensError, OSError):
        return LineLocator("")


def file_locator(path: str) -> LineLocator:
    """A `LineLocator` over the file at `path` on disk (read once per size and mtime; no lines when
    it is missing or not a regular file)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return LineLocator("")
    return _file_locator(path, (st.st_size, st.st_mtime_ns))


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def index_of_utf16(line: str, character: int) -> int:
    """The str index in `line` of UTF-16 offset `character` (clamped to the line)."""
    units = 0
    for i, ch in enumerate(line):
        if units >= character:
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line)
