"""The code attrs and dataclasses generate for the classes made at the server's start, compiled once
and kept in the disk cache (`gmonlens.load.diskcache`), as Python keeps a module's in a `.pyc`.

Importing pygls builds lsprotocol's ~580 attrs classes, and the server's modules their dataclasses:
each class's `__init__`, `__repr__`, `__eq__`... is generated as source text and compiled. The
compiling was a third of the server's start (bench/results.md: 0.2-0.3 s CPU of 0.65 s before
the first request is read), every start, for the same text.

Contract: inside `cached_generated_code()` (the main thread, before any other thread starts),
`attr._make`'s `compile` and `dataclasses`' `exec` of source text take the code object from the
entry when it holds one for the same source, file name and compiler flags (those the call would
have inherited from its caller: its module's `from __future__` features), else compile it;
nothing else changes (a code object is a function of those inputs, for one interpreter: the
entry's key names the interpreter's version and optimisation level). When more than a twentieth
of the code was compiled, the entry is written again on leaving, with exactly the code this start
used (a few compiled at every start do not rewrite it: attrs puts a per-process string hash in a
frozen class's `__hash__`). The cache off (`GMONLENS_CACHE=off`), or attrs or dataclasses without
the function compiled through: nothing is replaced. The entry is trusted as Python trusts a
`.pyc` in a user's own site-packages, and as every entry is (diskcache: a checksum over bytes
this code wrote, in a 0700 directory of the user's own: planting one takes the power to run code
as the user already).
"""

from __future__ import annotations
import __future__

import builtins
import hashlib
import marshal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import CodeType, ModuleType
from typing import Any

from gmonlens.load import diskcache

KIND = "startcode"
# the compiler flags a `from __future__` import sets (CPython's PyCF_MASK; `nested_scopes`' flag is
# a code flag too, CO_NESTED, and no longer a future)
_FUTURE = 0
for _name in __future__.all_feature_names:
    if _name != "nested_scopes":
        _FUTURE |= getattr(__future__, _name).compiler_flag


def entry_key() -> str:
    """The entry's key: what a code object depends on besides its source, file name and flags."""
    who = f"{sys.version}\0{sys.hexversion}\0{sys.implementation.cache_tag}\0{sys.flags.optimize}"
    return diskcache.content_key(who.encode())


class Codes:
    """Code objects by (flags, file name, source): from the entry, else compiled (`compiled`
    counts those); `used` holds every one asked for, marshalled, for the next entry."""

    def __init__(self, stored: dict[bytes, bytes]) -> None:
        self.stored = stored
        self.used: dict[bytes, bytes] = {}
        self.compiled = 0

    def code(self, source: str, filename: str, flags: int) -> CodeType:
        key = hashlib.blake2b(
            f"{flags}\0{filename}\0{source}".encode("utf-8", "surrogatepass"), digest_size=16
        ).digest()
        blob = self.stored.get(key)
        if blob is not None:
            try:
                code = marshal.loads(blob)
            except (ValueError, EOFError, TypeError):
                code = None
            if type(code) is CodeType and code.co_filename == filename:
                self.used[key] = blob
                return code
        made: CodeType = builtins.compile(source, filename, "exec", flags, True)
        self.used[key] = marshal.dumps(made)
        self.compiled += 1
        return made


def _entry(value: Any) -> dict[bytes, bytes]:
    """A stored entry, shape-checked ({16 bytes: bytes})."""
    diskcache.expect(type(value) is dict)
    diskcache.expect(diskcache.only(list(value), bytes) and all(len(k) == 16 for k in value))
    diskcache.expect(diskcache.only(list(value.values()), bytes))
    return value  # type: ignore[no-any-return]


def _future_flags(module: ModuleType, function: str) -> int | None:
    """The `from __future__` flags of `module` (read off one of its functions), None when it has
    no such function."""
    fn = getattr(module, function, None)
    code = getattr(fn, "__code__", None)
    return code.co_flags & _FUTURE if isinstance(code, CodeType) else None


def _compile_via(codes: Codes, caller: int) -> Callable[..., Any]:
    """`compile` as called from a module whose future flags are `caller`."""

    def compile_(source: Any, filename: Any, mode: str, flags: int = 0, dont_inherit: bool = False,
                 optimize: int = -1, **kw: Any) -> Any:  # fmt: skip
        if not dont_inherit:
            flags |= caller
        plain = mode == "exec" and type(source) is str and type(filename) is str and optimize == -1
        if plain and not kw and flags & ~_FUTURE == 0:  # no compiler option (an AST...) asked
            return codes.code(source, filename, flags)
        return builtins.compile(source, filename, mode, flags, True, optimize, **kw)

    return compile_


def _exec_via(codes: Codes, caller: int) -> Callable[..., Any]:
    """`exec` as called from a module whose future flags are `caller`."""

    def exec_(source: Any, globals: Any = None, locals: Any = None, /, **kw: Any) -> Any:
        if globals is None:  # the caller's namespace, as exec itself takes it
            frame = sys._getframe(1)
            globals, locals = frame.f_globals, frame.f_locals if locals is None else locals
        if type(source) is str:
            source = codes.code(source, "<string>", caller)
        return builtins.exec(source, globals, locals, **kw)

    return exec_


def _install(codes: Codes) -> list[Callable[[], None]]:
    """Route attrs' `compile` and dataclasses' `exec` through `codes`; returns the undoing."""
    undo: list[Callable[[], None]] = []
    hooks = (("attr._make", "_compile_and_eval", "compile", _compile_via),
             ("dataclasses", "dataclass", "exec", _exec_via))  # fmt: skip
    for module_name, function, name, make in hooks:
        try:
            module = __import__(module_name, fromlist=["_"])
        except ImportError:
            continue
        flags = _future_flags(module, function)
        if flags is None or name in vars(module):  # not as expected, or replaced by someone else
            continue
        setattr(module, name, make(codes, flags))
        undo.append(lambda m=module, n=name: delattr(m, n))  # type: ignore[misc]
    return undo


@contextmanager
def cached_generated_code() -> Iterator[Codes | None]:
    """Inside: classes made take their generated code from the disk cache (module docstring).
    Yields the `Codes` in use (None: the cache is off)."""
    if diskcache.cache_dir() is None:
        yield None
        return
    key = entry_key()
    codes = Codes(diskcache.load(KIND, key, _entry) or {})
    undo = _install(codes)
    try:
        yield codes
    finally:
        for step in undo:
            step()
        if codes.compiled > len(codes.used) // 20:
            diskcache.store(KIND, key, codes.used)
