"""The workspace's files as the server reads them itself (settings, sources): through the engine's
`gmonlens.common.files` (regular files only after links, never blocking on a FIFO, size-capped), decoded
bytes-safely. Profiles and binaries are read by the engine, with its own caps.
"""

from __future__ import annotations

import os
import threading

from gmonlens.common.errors import GmonlensError
from gmonlens.common.files import read_regular

__all__ = ["SETTINGS_CAP", "SOURCE_CAP", "read_regular", "read_text", "set_trust"]

SETTINGS_CAP = 1 << 20
SOURCE_CAP = 16 << 20
_untrusted: set[str] = set()  # workspace folders (as opened) the client has not said it trusts
_lock = threading.Lock()


def set_trust(folder: str, trusted: bool) -> None:
    """Record whether the client trusts workspace folder `folder` (the server says so per load)."""
    key = os.path.normpath(os.path.abspath(folder))
    with _lock:
        (_untrusted.discard if trusted else _untrusted.add)(key)


def escapes(path: str) -> str | None:
    """The untrusted folder that `path` is inside of while its links lead out of it, or None."""
    here = os.path.normpath(os.path.abspath(path))
    with _lock:
        folders = [f for f in _untrusted if here.startswith(f.rstrip(os.sep) + os.sep)]
    for folder in folders:
        root, real = os.path.realpath(folder), os.path.realpath(here)
        if not real.startswith(root.rstrip(os.sep) + os.sep):
            return folder
    return None


def read_text(path: str, cap: int, what: str) -> str:
    """A text file, UTF-8 with bad bytes replaced (raises GmonlensError naming the file). A file of
    an untrusted workspace folder whose links lead outside it (`src/main.c -> /etc/passwd`) is not
    read."""
    if escapes(path) is not None:
        raise GmonlensError(
            path, "a link leading outside the workspace folder: not read in an untrusted workspace"
        )
    return read_regular(path, cap, what).decode("utf-8", "replace")
