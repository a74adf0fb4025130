"""file: URIs <-> paths, bytes-safe: a path is bytes on POSIX, held as str with surrogateescape
(os.fsdecode); its URI percent-encodes the raw bytes, and a URI decodes back to the same bytes.
(pygls's `uris` raises on such paths and decodes %FF to U+FFFD.) For UTF-8 paths the URIs are
those pygls and editors write."""

from __future__ import annotations

import os
from urllib import parse


def from_fs_path(path: str) -> str:
    """The file: URI of the absolute `path`."""
    return "file://" + parse.quote(os.fsencode(path))


def to_fs_path(uri: str) -> str | None:
    """The path of a file: URI (None for other schemes, what does not parse, or a NUL in the path)."""
    try:
        parts = parse.urlsplit(uri)
    except (TypeError, ValueError, AttributeError):
        return None
    if parts.scheme.lower() != "file":
        return None
    path = os.fsdecode(parse.unquote_to_bytes(parts.path))
    netloc = parse.unquote(parts.netloc)
    if netloc and netloc != "localhost":
        path = f"//{netloc}{path}"  # a UNC-style path, as pygls reads it
    if "\0" in path:  # no file has such a name (os functions raise ValueError on it)
        return None
    return path or None
