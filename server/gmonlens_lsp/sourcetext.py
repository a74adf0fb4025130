"""Source text as LSP sees it: lines end only at "\\n", "\\r\\n" and "\\r" (str.splitlines also
splits at form feeds, \\v, \\x1c-\\x1e, \\x85, \\u2028 and \\u2029, which moves every later line);
characters are counted in UTF-16 code units. Files are read with `userfiles` (regular files, capped).
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

from gmonlens.errors import GmonlensError

from .userfiles import SOURCE_CAP, read_text

_EOL = re.compile(r"\r\n|\r|\n")


def lsp_lines(text: str) -> list[str]:
    """`text` split into LSP lines (without their ends)."""
    return _EOL.split(text)


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
