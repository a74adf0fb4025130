"""What the server keeps in the engine's on-disk cache (`gmonlens.diskcache`, under
`$XDG_CACHE_HOME/gmonlens`): the DWARF index, the line table, each computed profile and the
function scopes (for line heat's inlined copies).

Keys follow the binary's identity (real path, size, mtime, GNU build-id); a profile's key adds each
profile file's identity, the options and the engine's record shapes. Values are plain data
(marshal), so reading an entry never runs code; a missing, stale or corrupt entry reads as None.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Sequence
from typing import Any

from gmonlens import diskcache
from gmonlens.dwarf import DwarfIndex
from gmonlens.elf import read_build_id
from gmonlens.linetable import LineTable
from gmonlens.scopes import FunctionScopes

cache_dir = diskcache.cache_dir


def binary_key(path: str) -> str | None:
    """Identity of the executable at `path` (None when it cannot be read)."""
    return diskcache.binary_key(path, read_build_id(path))


def _shape(*classes: Any) -> str:
    return ";".join(f"{c.__name__}:" + ",".join(f.name for f in dataclasses.fields(c)) for c in classes)


def profile_key(binary: str, profiles: Sequence[str], options: object) -> str | None:
    """Identity of a computed profile: the binary's, each profile file's, the options and the
    engine version (record shapes included)."""
    from gmonlens import __version__, model

    bkey = binary_key(binary)
    if bkey is None:
        return None
    shape = _shape(model.Profile, model.Routine, model.Arc, model.Cycle, model.GraphEntry)
    parts = [bkey, repr(options), __version__, shape]
    for p in profiles:
        try:
            st = os.stat(p)
        except OSError:
            return None
        parts.append(f"{os.path.realpath(p)}\0{st.st_size}\0{st.st_mtime_ns}")
    return hashlib.sha256("\0\0".join(parts).encode()).hexdigest()[:32]


def _encode_profile(profile: Any) -> dict[str, Any]:
    """A Profile as plain tuples: one level of dataclass records per field."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(profile):
        value = getattr(profile, f.name)
        if isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]):
            names = [g.name for g in dataclasses.fields(value[0])]
            out[f.name] = (type(value[0]).__name__, tuple(tuple(getattr(v, n) for n in names) for v in value))
        else:
            out[f.name] = value
    return out


def _decode_profile(data: dict[str, Any]) -> Any:
    from gmonlens import model

    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(model.Profile):
        value = data[f.name]
        if (
            isinstance(value, tuple)
            and len(value) == 2
            and isinstance(value[0], str)
            and isinstance(value[1], tuple)
        ):
            cls = getattr(model, value[0])
            value = tuple(cls(*vals) for vals in value[1])
        kwargs[f.name] = value
    return model.Profile(**kwargs)


def read_profile(key: str | None) -> Any:
    """A computed `Profile` written by `write_profile`, or None."""
    data = diskcache.load("profile", key)
    if not isinstance(data, dict):
        return None
    try:
        return _decode_profile(data)
    except Exception:  # written by another engine version: recompute
        return None


def write_profile(key: str | None, profile: Any) -> bool:
    return diskcache.store("profile", key, _encode_profile(profile))


def load_dwarf(binary: str) -> tuple[DwarfIndex, str | None, bool]:
    """(index, cache key, whether it came complete from the cache)."""
    key = binary_key(binary)
    data = diskcache.load("dwarf", key)
    if isinstance(data, dict):
        try:
            return DwarfIndex.from_export(binary, data), key, True
        except (KeyError, TypeError, ValueError):
            pass
    return DwarfIndex(binary), key, False


def save_dwarf(index: DwarfIndex, key: str | None) -> bool:
    return diskcache.store("dwarf", key, index.export())


def load_line_table(binary: str) -> LineTable:
    """The binary's `LineTable`, from the cache when its identity matches, else decoded (and saved)."""
    key = binary_key(binary)
    data = diskcache.load("linetable", key)
    if isinstance(data, tuple) and len(data) == 3:
        starts, sequences, files = data
        return LineTable(starts, sequences, files)
    table = LineTable.from_elf(binary)
    diskcache.store("linetable", key, (table.starts, table.sequences, table.files))
    return table


def load_scopes(binary: str, *, compute: bool) -> FunctionScopes | None:
    """The innermost function at each address (`gmonlens.scopes`), from the cache; computed (every
    DWARF DIE: seconds on a large program) and saved when `compute`, else None when not cached."""
    key = binary_key(binary)
    data = diskcache.load("scopes", key)
    if isinstance(data, tuple) and len(data) == 2:
        return FunctionScopes(data[0], data[1])
    if not compute:
        return None
    from gmonlens.scopes import function_scopes

    scopes = function_scopes(DwarfIndex(binary))
    diskcache.store("scopes", key, (scopes.bounds, scopes.names))
    return scopes


def has_scopes(binary: str) -> bool:
    d = diskcache.cache_dir()
    key = binary_key(binary)
    return d is not None and key is not None and os.path.exists(os.path.join(d, f"scopes-{key}.marshal"))
