"""The workspace's files as the server reads them itself (settings, sources): through the engine's
`gmonlens.files` (regular files only after links, never blocking on a FIFO, size-capped), decoded
bytes-safely. Profiles and binaries are read by the engine, with its own caps.
"""

from __future__ import annotations

from gmonlens.files import read_regular

__all__ = ["SETTINGS_CAP", "SOURCE_CAP", "read_regular", "read_text"]

SETTINGS_CAP = 1 << 20
SOURCE_CAP = 16 << 20


def read_text(path: str, cap: int, what: str) -> str:
    """A text file, UTF-8 with bad bytes replaced (raises GmonlensError naming the file)."""
    return read_regular(path, cap, what).decode("utf-8", "replace")
