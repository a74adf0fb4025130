"""The server's own entry in the engine's on-disk cache (`gmonlens.load.diskcache`, under
`$XDG_CACHE_HOME/gmonlens`): each computed profile. (The binary's line table, DWARF index and
scopes are the engine's: `gmonlens.load.program.Program` keeps them there.)

A profile's key is the binary's identity (`Program.key`: real path, inode, size, mtime, ctime,
GNU build-id) with each profile file's content hash, the options and the engine's record shapes.
Every entry read back is checksummed by diskcache and shape-checked here (`_decode_profile`): a
missing, stale, corrupt or wrongly shaped entry reads as None and is rebuilt.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import functools
import os
import types
import typing
from array import array
from collections.abc import Callable
from typing import Any

from gmonlens.load import diskcache
from gmonlens.load.program import Program

cache_dir = diskcache.cache_dir


def _shape(*classes: Any) -> str:
    return ";".join(f"{c.__name__}:" + ",".join(f.name for f in dataclasses.fields(c)) for c in classes)


def profile_key(program: Program, options: object) -> str | None:
    """Identity of a computed profile: the binary's, each profile file's *content* (a profile
    replaced by another of the same size and mtime is another profile), the options and the
    engine version (record shapes included). Raises GmonlensError for an unusable binary; None
    when a profile file cannot be read (the load then says why)."""
    from gmonlens import __version__
    from gmonlens.common import model
    from gmonlens.common.errors import GmonFormatError

    bkey = program.key
    if bkey is None:
        return None
    shape = _shape(model.Profile, model.Routine, model.Arc, model.Cycle, model.GraphEntry, model.FoldedSymbol)
    parts = [repr(options).encode("utf-8", "surrogateescape"), __version__.encode(), shape.encode(), CODEC]
    try:
        parts += [k.encode() for k in program.profiles.content_keys()]
    except GmonFormatError:
        return None
    return diskcache.derived_key(bkey, *parts)


_COLUMNS = ("arcs", "graph_order", "parents", "children")  # the engine's column tables
_MAPPINGS = (collections.abc.Mapping, dict)  # Profile's int -> int fields (indirect_children)


# A profile entry is stored as columns: per record class, one column per field, numbers as machine
# arrays (bytes) and strings as tuples, so that reading 100,000 routines back is a few C-level
# copies and type checks per column instead of a check per value (bench/scale_bench.py: 3.4 s ->
# well under a second at 100,000 routines). Fields whose values do not fit a column's kind (an
# int past 64 bits, an int in a float field) keep the value-by-value form.
CODEC = b"columns-1"  # part of the profile key: an older entry is another key


def _int_column(values: list[Any]) -> tuple[str, Any]:
    if all(type(v) is int for v in values):
        try:
            return "q", array("q", values).tobytes()
        except OverflowError:
            pass
    return "v", tuple(values)


def _column(tp: Any, values: list[Any]) -> tuple[str, Any]:
    """One field's values as (kind, payload): "q" int64 bytes, "d" float64 bytes, "b" bool bytes,
    "s" a tuple of str (None allowed for `str | None`), "t" tuples of ints (lengths, int64 bytes),
    "v" the values as they are (checked one by one on reading)."""
    if tp is int:
        return _int_column(values)
    if tp is float and all(type(v) is float for v in values):
        return "d", array("d", values).tobytes()
    if tp is bool and all(type(v) is bool for v in values):
        return "b", bytes(values)
    if tp in (str, str | None) and all(type(v) is str or v is None for v in values):
        return "s", tuple(values)
    if tp in (tuple[int, ...], tuple[tuple[int, int], ...]):
        width = 1 if tp == tuple[int, ...] else 2  # ints a tuple's item holds
        flat = [x for v in values for x in (v if width == 1 else _flat(v))]
        kind, data = _int_column(flat)
        if kind == "q":
            return "t", (array("q", [width * len(v) for v in values]).tobytes(), data)
    return "v", tuple(values)


def _flat(pairs: tuple[tuple[int, int], ...]) -> list[int]:
    return [x for p in pairs for x in p]


def _encode_profile(profile: Any) -> dict[str, Any]:
    """A Profile as columns (see CODEC): the record fields by `_column`; the engine's column
    tables (`model.ArcTable`, `GraphOrder`, `Groups`) as their plain columns (bytes)."""
    from gmonlens.common.model import ArcTable, GraphOrder, Groups

    out: dict[str, Any] = {}
    hints = typing.get_type_hints(type(profile))
    for f in dataclasses.fields(profile):
        value = getattr(profile, f.name)
        args = typing.get_args(hints[f.name])
        if f.name in _COLUMNS:  # columns as bytes: no tuple a record
            cls = {"arcs": ArcTable, "graph_order": GraphOrder}.get(f.name, Groups)
            out[f.name] = (cls.__name__, (value if isinstance(value, cls) else cls(value)).to_plain())
        elif typing.get_origin(hints[f.name]) in _MAPPINGS:  # int -> int, as sorted pairs
            out[f.name] = tuple(sorted(value.items()))
        elif typing.get_origin(hints[f.name]) is tuple and args and dataclasses.is_dataclass(args[0]):
            rec: Any = args[0]
            fields = typing.get_type_hints(rec)
            names = [g.name for g in dataclasses.fields(rec)]
            cols = tuple(_column(fields[n], [getattr(v, n) for v in value]) for n in names)
            out[f.name] = (rec.__name__, len(value), cols)
        else:
            out[f.name] = value
    return out


def _columns(data: dict[str, Any], n_routines: int, n_cycles: int) -> dict[str, Any]:
    """The column tables of `_encode_profile` data, shape-checked (ShapeError)."""
    from gmonlens.common import model

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


def _ints(data: Any, n: int) -> list[int]:
    diskcache.expect(type(data) is bytes and len(data) == 8 * n)
    return array("q", data).tolist()


def _tuples(payload: Any, n: int, pairs: bool) -> list[Any]:
    """Tuples of ints from a "t" column: (lengths, flat values); `pairs`: each a tuple of pairs."""
    diskcache.expect(type(payload) is tuple and len(payload) == 2)
    lengths = _ints(payload[0], n)
    diskcache.expect(not lengths or min(lengths) >= 0)
    total = sum(lengths)
    flat: list[Any] = _ints(payload[1], total)
    if pairs:
        diskcache.expect(all(k % 2 == 0 for k in lengths))
        flat = list(zip(flat[0::2], flat[1::2], strict=True))
        lengths = [k // 2 for k in lengths]
    out: list[Any] = []
    at = 0
    for k in lengths:
        out.append(tuple(flat[at : at + k]))
        at += k
    return out


def _decode_column(tp: Any, column: Any, n: int) -> Any:
    """The `n` values of one `_column`, checked against the field's type `tp`."""
    diskcache.expect(type(column) is tuple and len(column) == 2 and type(column[0]) is str)
    kind, data = column
    if kind == "q" and tp is int:
        return _ints(data, n)
    if kind == "d" and tp is float:
        diskcache.expect(type(data) is bytes and len(data) == 8 * n)
        return array("d", data).tolist()
    if kind == "b" and tp is bool:
        diskcache.expect(type(data) is bytes and len(data) == n)
        return list(map(bool, data))
    if kind == "s" and tp in (str, str | None):
        diskcache.expect(type(data) is tuple and len(data) == n)
        allowed = {str} if tp is str else {str, type(None)}
        diskcache.expect(set(map(type, data)) <= allowed)
        return data
    if kind == "t" and tp in (tuple[int, ...], tuple[tuple[int, int], ...]):
        return _tuples(data, n, tp != tuple[int, ...])
    diskcache.expect(kind == "v" and type(data) is tuple and len(data) == n)
    diskcache.expect(all(map(_checker(tp), data)))
    return data


def _records(cls: Any, encoded: Any) -> tuple[Any, ...]:
    """Records of class `cls` from `(class name, count, columns)`, each column type-checked."""
    diskcache.expect(type(encoded) is tuple and len(encoded) == 3 and encoded[0] == cls.__name__)
    _name, n, cols = encoded
    fields = dataclasses.fields(cls)
    diskcache.expect(type(n) is int and n >= 0 and type(cols) is tuple and len(cols) == len(fields))
    hints = typing.get_type_hints(cls)
    columns = [_decode_column(hints[f.name], c, n) for f, c in zip(fields, cols, strict=True)]
    return tuple(map(cls, *columns)) if n else ()


def _decode_profile(data: Any) -> Any:
    """A Profile from `_encode_profile` data: every field type-checked, every cross-reference
    (routine ids, arc positions, cycle numbers) in range, else ShapeError."""
    from gmonlens.common import model

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
        elif typing.get_origin(tp) in _MAPPINGS:
            diskcache.expect(_checker(tuple[tuple[int, int], ...])(value))
            value = dict(value)
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
    diskcache.expect(all(k in rid and n >= 0 for k, n in profile.indirect_children.items()))
    return profile


def read_profile(key: str | None) -> Any:
    """A computed `Profile` written by `write_profile`, or None (wrong shapes are dropped)."""
    return diskcache.load("profile", key, _decode_profile)


def write_profile(key: str | None, profile: Any) -> bool:
    return diskcache.store("profile", key, _encode_profile(profile))


FIT_FORMAT = b"fit-1"


def fit_of(program: Program) -> Any:
    """`program.fit()` (discovery's check of a candidate binary against the profiles), kept in
    the disk cache per binary identity and profile content: a second start skips the symbol
    table, the profile's parse and the arcs' check against the code (1.3 s CPU at 100,000
    routines). Raises as `program.fit()` does (an error is never cached)."""
    from gmonlens import __version__
    from gmonlens.common.errors import GmonlensError

    try:
        parts = [k.encode() for k in program.profiles.content_keys()]
        key = diskcache.derived_key(program.key, FIT_FORMAT, __version__.encode(), *parts)
    except GmonlensError:
        key = None  # program.fit() says why
    cached = diskcache.load("fit", key, _decode_fit) if key is not None else None
    if cached is not None:
        return cached
    fit = program.fit()
    if key is not None:
        diskcache.store("fit", key, dataclasses.astuple(fit))
    return fit


_THREADS = b"thread-starter-1"


def thread_starter_of(program: Program, find: Callable[[list[str]], str | None]) -> str | None:
    """`find` of the binary's symbol names (which symbol starts threads, for the profile's health),
    kept in the disk cache per binary: a second start does not read its symbol table (0.2-0.3 s
    CPU at 100,000 routines) before the first lenses. Raises as `program.image` does."""
    key = diskcache.derived_key(program.key, _THREADS)

    def decode(value: Any) -> Any:
        diskcache.expect(
            type(value) is tuple and len(value) == 1 and (value[0] is None or type(value[0]) is str)
        )
        return value

    cached = diskcache.load("threads", key, decode) if key is not None else None
    if cached is not None:
        found: str | None = cached[0]
        return found
    found = find([s.name for s in program.image.symbols])
    if key is not None:
        diskcache.store("threads", key, (found,))
    return found


def _decode_fit(value: Any) -> Any:
    from gmonlens.profile.fit import Fit

    checks = [_checker(typing.get_type_hints(Fit)[f.name]) for f in dataclasses.fields(Fit)]
    diskcache.expect(type(value) is tuple and len(value) == len(checks))
    diskcache.expect(all(c(v) for c, v in zip(checks, value, strict=True)))
    return Fit(*value)


def has_profile(key: str | None) -> bool:
    """Whether an entry `write_profile` wrote under `key` is there (not read nor checked)."""
    return diskcache.exists("profile", key)


# ---- what a load computes after its first lenses: kept, so that the next start does not ----------
# recompute them (100,000 routines: the certainty 1.2-2 s CPU, the line heat 0.4 s and more with
# many samples, both beside the first lenses of an editor that opens a file after the load)

_CERTAINTY = b"certainty-1"
_R_COLUMNS = ("r_est", "r_callee", "r_callers", "r_ticks", "callers")
_C_COLUMNS = ("c_est", "c_callee", "c_callers", "c_ticks", "cycle_callers")
_FLOATS = frozenset({"r_est", "r_ticks", "c_est", "c_ticks"})


def write_certainty(key: str | None, cert: Any) -> bool:
    """Keep `cert` (a `ProfileCertainty` of the profile stored under `key`) in the disk cache."""
    from gmonlens.profile.certainty import certainty_columns

    cols = certainty_columns(cert)
    out: dict[str, Any] = {"format": _CERTAINTY}
    for name, values in cols.items():
        out[name] = array("d" if name in _FLOATS else "q", values).tobytes()
    return diskcache.store("certainty", key, out)


def read_certainty(key: str | None, profile: Any) -> Any:
    """The `ProfileCertainty` of `profile` (stored under `key`) kept by `write_certainty`, or None
    (missing, or not of this profile's shape)."""
    from gmonlens.profile.certainty import certainty_from_columns

    n, ncyc = len(profile.routines), len(profile.cycles)

    def decode(value: Any) -> Any:
        diskcache.expect(type(value) is dict and value.get("format") == _CERTAINTY)
        cols: dict[str, Any] = {}
        for names, length in ((_R_COLUMNS, n), (_C_COLUMNS, ncyc)):
            for name in names:
                raw = value.get(name)
                diskcache.expect(type(raw) is bytes and len(raw) == 8 * length)
                cols[name] = array("d" if name in _FLOATS else "q", raw)
        for side in ("r", "c"):  # a split names a routine (id) or a cycle (-number) of this profile
            callee, callers = cols[f"{side}_callee"], cols[f"{side}_callers"]
            diskcache.expect(min(callers, default=0) >= 0)
            diskcache.expect(all(-ncyc <= e < n for e, k in zip(callee, callers, strict=True) if k))
        diskcache.expect(min(cols["callers"], default=0) >= 0 and min(cols["cycle_callers"], default=0) >= 0)
        return certainty_from_columns(profile, cols)

    return diskcache.load("certainty", key, decode)


_HEAT = b"heat-1"


def write_heat(key: str | None, spans: Any) -> bool:
    """Keep a line heat's spans (`LineHeat.spans` of the profile stored under `key`)."""
    files: dict[str, int] = {}
    fid = [-1 if s.file is None else files.setdefault(s.file, len(files)) for s in spans]
    out = {
        "format": _HEAT,
        "files": tuple(files),
        "address": array("q", (s.address for s in spans)).tobytes(),
        "end": array("q", (s.end for s in spans)).tobytes(),
        "routine": array("q", (s.routine for s in spans)).tobytes(),
        "file": array("q", fid).tobytes(),
        "line": array("q", (s.line for s in spans)).tobytes(),
        "ticks": array("d", (s.ticks for s in spans)).tobytes(),
    }
    return diskcache.store("heat", key, out)


def read_heat(key: str | None, profile: Any) -> Any:
    """The `LineHeat` of `profile` (stored under `key`) from the spans `write_heat` kept, or None."""
    from gmonlens.profile.line_heat import LineSpan, line_heat_of

    def decode(value: Any) -> Any:
        diskcache.expect(type(value) is dict and value.get("format") == _HEAT)
        files = value.get("files")
        diskcache.expect(type(files) is tuple and diskcache.only(files, str))
        cols = {}
        for name, code in (("address", "q"), ("end", "q"), ("routine", "q"), ("file", "q"), ("line", "q"),
                           ("ticks", "d")):  # fmt: skip
            raw = value.get(name)
            diskcache.expect(type(raw) is bytes and len(raw) % 8 == 0)
            cols[name] = array(code, raw)
        k = len(cols["address"])
        diskcache.expect(all(len(c) == k for c in cols.values()))
        n = len(profile.routines)
        diskcache.expect(all(0 <= r < n for r in cols["routine"]))
        diskcache.expect(all(-1 <= f < len(files) for f in cols["file"]))
        spans = [
            LineSpan(a, e, r, files[f] if f >= 0 else None, line, t)
            for a, e, r, f, line, t in zip(cols["address"], cols["end"], cols["routine"], cols["file"],
                                           cols["line"], cols["ticks"], strict=True)
        ]  # fmt: skip
        return line_heat_of(profile, spans)

    return diskcache.load("heat", key, decode)


def _ran_key(profile_keys: list[str]) -> str | None:
    if not profile_keys:
        return None
    return diskcache.derived_key(diskcache.content_key(b"ran-by"), *(k.encode() for k in profile_keys))


def remember_binary(profile_keys: list[str], binary: str) -> None:
    """Remember (in the disk cache) that the profiles of these content keys were loaded with the
    binary at `binary` (its real path): when that file is later rebuilt, the profile's refusal can
    say so for certain (`binary_that_ran`)."""
    key = _ran_key(profile_keys)
    if key is not None and binary_that_ran(profile_keys) != os.path.realpath(binary):
        diskcache.store("ranby", key, os.path.realpath(binary))


def binary_that_ran(profile_keys: list[str]) -> str | None:
    """The real path of the binary these profiles were last loaded with, or None."""
    key = _ran_key(profile_keys)

    def check(value: Any) -> str:
        diskcache.expect(type(value) is str)
        return str(value)

    return diskcache.load("ranby", key, check) if key is not None else None
