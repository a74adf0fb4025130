"""The server's own entry in the engine's on-disk cache (`gmonlens.diskcache`, under
`$XDG_CACHE_HOME/gmonlens`): each computed profile. (The binary's line table, DWARF index and
scopes are the engine's: `gmonlens.program.Program` keeps them there.)

A profile's key is the binary's identity (`Program.key`: real path, inode, size, mtime, ctime,
GNU build-id) with each profile file's content hash, the options and the engine's record shapes.
Every entry read back is checksummed by diskcache and shape-checked here (`_decode_profile`): a
missing, stale, corrupt or wrongly shaped entry reads as None and is rebuilt.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable
from typing import Any

from gmonlens import diskcache
from gmonlens.program import Program

cache_dir = diskcache.cache_dir


def _shape(*classes: Any) -> str:
    return ";".join(f"{c.__name__}:" + ",".join(f.name for f in dataclasses.fields(c)) for c in classes)


def profile_key(program: Program, options: object) -> str | None:
    """Identity of a computed profile: the binary's, each profile file's *content* (a profile
    replaced by another of the same size and mtime is another profile), the options and the
    engine version (record shapes included). Raises GmonlensError for an unusable binary; None
    when a profile file cannot be read (the load then says why)."""
    from gmonlens import __version__, model
    from gmonlens.errors import GmonFormatError

    bkey = program.key
    if bkey is None:
        return None
    shape = _shape(model.Profile, model.Routine, model.Arc, model.Cycle, model.GraphEntry, model.FoldedSymbol)
    parts = [repr(options).encode("utf-8", "surrogateescape"), __version__.encode(), shape.encode()]
    try:
        parts += [k.encode() for k in program.profiles.content_keys()]
    except GmonFormatError:
        return None
    return diskcache.derived_key(bkey, *parts)


_COLUMNS = ("arcs", "graph_order", "parents", "children")  # the engine's column tables


def _encode_profile(profile: Any) -> dict[str, Any]:
    """A Profile as plain tuples: one level of dataclass records per field; the column tables
    (`model.ArcTable`, `GraphOrder`, `Groups`) as their plain columns (bytes)."""
    from gmonlens.model import ArcTable, GraphOrder, Groups

    out: dict[str, Any] = {}
    for f in dataclasses.fields(profile):
        value = getattr(profile, f.name)
        if f.name in _COLUMNS:  # columns as bytes: no tuple a record
            cls = {"arcs": ArcTable, "graph_order": GraphOrder}.get(f.name, Groups)
            out[f.name] = (cls.__name__, (value if isinstance(value, cls) else cls(value)).to_plain())
        elif isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]):
            names = [g.name for g in dataclasses.fields(value[0])]
            out[f.name] = (type(value[0]).__name__, tuple(tuple(getattr(v, n) for n in names) for v in value))
        else:
            out[f.name] = value
    return out


def _columns(data: dict[str, Any], n_routines: int, n_cycles: int) -> dict[str, Any]:
    """The column tables of `_encode_profile` data, shape-checked (ShapeError)."""
    from gmonlens import model

    def plain(name: str, cls: str) -> Any:
        value = data[name]
        diskcache.expect(isinstance(value, tuple) and len(value) == 2 and value[0] == cls)
        return value[1]

    try:
        arcs = model.ArcTable.from_plain(plain("arcs", "ArcTable"), n_routines)
        return {
            "arcs": arcs,
            "graph_order": model.GraphOrder.from_plain(
                plain("graph_order", "GraphOrder"), n_routines, n_cycles
            ),
            "parents": model.Groups.from_plain(plain("parents", "Groups"), n_routines, len(arcs)),
            "children": model.Groups.from_plain(plain("children", "Groups"), n_routines, len(arcs)),
        }
    except ValueError as exc:
        raise diskcache.ShapeError(str(exc)) from exc


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
        if f.name in _COLUMNS:
            continue  # below, once the routines and cycles are known
        if typing.get_origin(tp) is tuple and args and dataclasses.is_dataclass(args[0]):
            value = _records(args[0], value)
        else:
            diskcache.expect(_checker(tp)(value))
        kwargs[f.name] = value
    kwargs.update(_columns(data, len(kwargs["routines"]), len(kwargs["cycles"])))
    profile = model.Profile(**kwargs)
    n_r, n_c = len(profile.routines), len(profile.cycles)
    rid = range(n_r)
    diskcache.expect(all(r.id == i and 0 <= r.cycle <= n_c for i, r in enumerate(profile.routines)))
    diskcache.expect(all(f.routine in rid for f in profile.folded))
    diskcache.expect(all(c.number == k + 1 for k, c in enumerate(profile.cycles)))
    diskcache.expect(all(m in rid for c in profile.cycles for m in (*c.members, *c.member_order)))
    return profile


def read_profile(key: str | None) -> Any:
    """A computed `Profile` written by `write_profile`, or None (wrong shapes are dropped)."""
    return diskcache.load("profile", key, _decode_profile)


def write_profile(key: str | None, profile: Any) -> bool:
    return diskcache.store("profile", key, _encode_profile(profile))


def has_profile(key: str | None) -> bool:
    """Whether an entry `write_profile` wrote under `key` is there (not read nor checked)."""
    return diskcache.exists("profile", key)
