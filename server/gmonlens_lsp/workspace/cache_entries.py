"""What the server keeps in the engine's on-disk cache (`gmonlens.diskcache`, under
`$XDG_CACHE_HOME/gmonlens`): the DWARF index, the line table, each computed profile and the
function scopes (for line heat's inlined copies).

Keys follow the binary's identity (real path, inode, size, mtime, ctime, GNU build-id); a
profile's key adds each profile file's content hash, the options and the engine's record shapes.
Every entry read back is checksummed by diskcache and shape-checked here (`_decode_profile`,
`LineTable.from_plain`, `DwarfIndex.from_export`, `FunctionScopes.from_plain`): a missing, stale,
corrupt or wrongly shaped entry reads as None and is rebuilt.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Sequence
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
    """Identity of a computed profile: the binary's, each profile file's *content* (a profile
    replaced by another of the same size and mtime is another profile), the options and the
    engine version (record shapes included)."""
    from gmonlens import __version__, model
    from gmonlens.errors import GmonlensError
    from gmonlens.loader import read_profile_bytes

    bkey = binary_key(binary)
    if bkey is None:
        return None
    shape = _shape(model.Profile, model.Routine, model.Arc, model.Cycle, model.GraphEntry, model.FoldedSymbol)
    parts = [repr(options).encode("utf-8", "surrogateescape"), __version__.encode(), shape.encode()]
    for p in profiles:
        try:
            parts.append(diskcache.content_key(read_profile_bytes(p)).encode())
        except GmonlensError:
            return None
    return diskcache.derived_key(bkey, *parts)


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


@functools.cache
def _checker(tp: Any) -> Callable[[Any], bool]:
    """A test of whether a value has the type `tp` (the annotations of the model's records),
    built once per type."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is float:
        return lambda v: type(v) is float or type(v) is int
    if tp is int:
        return lambda v: type(v) is int or type(v) is bool
    if tp in (str, bool):
        return lambda v: type(v) is tp
    if tp is type(None):
        return lambda v: v is None
    if origin in (types.UnionType, typing.Union):
        parts = [_checker(a) for a in args]
        return lambda v: any(p(v) for p in parts)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        if args[0] is int:
            return lambda v: type(v) is tuple and set(map(type, v)) <= {int}
        item = _checker(args[0])
        return lambda v: type(v) is tuple and all(map(item, v))
    if origin is tuple:
        items = [_checker(a) for a in args]
        return lambda v: (
            type(v) is tuple and len(v) == len(items) and all(c(x) for c, x in zip(items, v, strict=True))
        )
    return lambda v: False


def _records(cls: Any, encoded: Any) -> tuple[Any, ...]:
    """Records of class `cls` from `(class name, field tuples)`, each field type-checked."""
    if encoded == ():
        return ()
    diskcache.expect(isinstance(encoded, tuple) and len(encoded) == 2 and encoded[0] == cls.__name__)
    hints = typing.get_type_hints(cls)
    checks = [_checker(hints[f.name]) for f in dataclasses.fields(cls)]
    rows = encoded[1]
    diskcache.expect(isinstance(rows, tuple))
    n = len(checks)
    for row in rows:
        diskcache.expect(type(row) is tuple and len(row) == n)
        diskcache.expect(all(c(v) for c, v in zip(checks, row, strict=True)))
    return tuple(cls(*row) for row in rows)


def _decode_profile(data: Any) -> Any:
    """A Profile from `_encode_profile` data: every field type-checked, every cross-reference
    (routine ids, arc positions, cycle numbers) in range, else ShapeError."""
    from gmonlens import model

    diskcache.expect(isinstance(data, dict))
    hints = typing.get_type_hints(model.Profile)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(model.Profile):
        diskcache.expect(f.name in data)
        tp, value = hints[f.name], data[f.name]
        args = typing.get_args(tp)
        if typing.get_origin(tp) is tuple and args and dataclasses.is_dataclass(args[0]):
            value = _records(args[0], value)
        else:
            diskcache.expect(_checker(tp)(value))
        kwargs[f.name] = value
    profile = model.Profile(**kwargs)
    n_r, n_a, n_c = len(profile.routines), len(profile.arcs), len(profile.cycles)
    rid = range(n_r)
    diskcache.expect(all(r.id == i and 0 <= r.cycle <= n_c for i, r in enumerate(profile.routines)))
    diskcache.expect(all(a.parent in rid and a.child in rid for a in profile.arcs))
    diskcache.expect(all(f.routine in rid for f in profile.folded))
    diskcache.expect(len(profile.parents) == len(profile.children) == n_r)
    diskcache.expect(all(0 <= i < n_a for lst in (*profile.parents, *profile.children) for i in lst))
    diskcache.expect(all(c.number == k + 1 for k, c in enumerate(profile.cycles)))
    diskcache.expect(all(m in rid for c in profile.cycles for m in (*c.members, *c.member_order)))
    diskcache.expect(
        all(g.routine in rid or (g.routine == -1 and 1 <= g.cycle <= n_c) for g in profile.graph_order)
    )
    return profile


def read_profile(key: str | None) -> Any:
    """A computed `Profile` written by `write_profile`, or None (wrong shapes are dropped)."""
    return diskcache.load("profile", key, _decode_profile)


def write_profile(key: str | None, profile: Any) -> bool:
    return diskcache.store("profile", key, _encode_profile(profile))


def load_dwarf(binary: str) -> tuple[DwarfIndex, str | None, bool]:
    """(index, cache key, whether it came complete from the cache)."""
    key = binary_key(binary)
    index = diskcache.load("dwarf", key, lambda data: DwarfIndex.from_export(binary, data))
    if index is not None:
        return index, key, True
    return DwarfIndex(binary), key, False


def save_dwarf(index: DwarfIndex, key: str | None) -> bool:
    return diskcache.store("dwarf", key, index.export())


def load_line_table(binary: str) -> LineTable:
    """The binary's `LineTable`, from the cache when its identity matches, else decoded (and saved)."""
    key = binary_key(binary)
    table = diskcache.load("linetable", key, LineTable.from_plain)
    if table is not None:
        return table
    table = LineTable.from_elf(binary)
    plain = table.to_plain()
    if plain is not None:
        diskcache.store("linetable", key, plain)
    return table


def load_scopes(binary: str, *, compute: bool) -> FunctionScopes | None:
    """The innermost function at each address (`gmonlens.scopes`), from the cache; computed (every
    DWARF DIE: seconds on a large program) and saved when `compute`, else None when not cached."""
    key = binary_key(binary)
    cached = diskcache.load("scopes", key, FunctionScopes.from_plain)
    if cached is not None or not compute:
        return cached
    from gmonlens.scopes import function_scopes

    scopes = function_scopes(DwarfIndex(binary))
    diskcache.store("scopes", key, (scopes.bounds, scopes.names))
    return scopes


def has_scopes(binary: str) -> bool:
    return diskcache.exists("scopes", binary_key(binary))
