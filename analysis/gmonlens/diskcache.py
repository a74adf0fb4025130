"""A small on-disk cache under `$XDG_CACHE_HOME/gmonlens` (default `~/.cache/gmonlens`).

Entries are keyed by a binary's identity (real path, size, mtime in ns, GNU build-id) plus a kind,
stored with `marshal` (plain data only: loading runs no code), written atomically. A missing,
foreign or corrupt entry reads as None; `GMONLENS_CACHE=off` disables the cache. Failures to
write are silent: the cache only ever saves time.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import tempfile
from typing import Any

FORMAT = 1


def cache_dir() -> str | None:
    if os.environ.get("GMONLENS_CACHE", "").lower() in ("off", "0", "no", "false"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gmonlens")


def binary_key(path: str, build_id: str | None) -> str | None:
    """A key that changes whenever the file at `path` changes; None if it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    ident = f"{FORMAT}\0{os.path.realpath(path)}\0{st.st_size}\0{st.st_mtime_ns}\0{build_id or ''}"
    return hashlib.sha256(ident.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def derived_key(base: str | None, *parts: bytes) -> str | None:
    """A key for a value computed from the binary `base` identifies and `parts` (bytes)."""
    if base is None:
        return None
    h = hashlib.sha256(base.encode())
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return h.hexdigest()[:32]


def load(kind: str, key: str | None) -> Any:
    d = cache_dir()
    if d is None or key is None:
        return None
    try:
        with open(os.path.join(d, f"{kind}-{key}.marshal"), "rb") as fh:
            value = marshal.loads(fh.read())  # marshal.load(fh) is 10x slower on large entries
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not isinstance(value, tuple) or len(value) != 2 or value[0] != key:
        return None
    return value[1]


def store(kind: str, key: str | None, value: Any) -> bool:
    """Write an entry (plain data: marshal's types); False when nothing was written."""
    d = cache_dir()
    if d is None or key is None:
        return False
    tmp = None
    try:
        os.makedirs(d, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{kind}-", dir=d)
        with os.fdopen(fd, "wb") as fh:
            fh.write(marshal.dumps((key, value)))
        os.replace(tmp, os.path.join(d, f"{kind}-{key}.marshal"))
        return True
    except (OSError, ValueError):
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        return False
