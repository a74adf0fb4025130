"""The server's start takes the code attrs and dataclasses generate from the disk cache
(`gmonlens_lsp.generated_code`): the classes made have the very code objects compiling gives (each
start a fresh process, as the server's is), a start with the entry compiles nothing it holds, the
hooks are gone after the start, and a damaged entry or one of the wrong shape is not used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gmonlens.load import diskcache
from gmonlens_lsp import generated_code

ROOT = Path(__file__).resolve().parents[2]
# classes as a start makes them: attrs (lsprotocol's kind, a frozen one: its __hash__ holds a
# per-process string hash), dataclasses (the engine's kind), each method's code object dumped
SCRIPT = r"""
import hashlib, json, marshal, sys
from gmonlens_lsp.generated_code import cached_generated_code

def classes():
    import attr, dataclasses, typing
    @attr.define
    class Position:
        line: int
        character: int = 0
        tags: typing.Optional[list] = attr.field(default=None, validator=attr.validators.optional(attr.validators.instance_of(list)))
    @attr.frozen
    class Range:
        start: Position
        end: Position
    @dataclasses.dataclass(frozen=True, order=True)
    class Routine:
        name: str
        ticks: float = 0.0
    @dataclasses.dataclass(slots=True)
    class Arc:
        caller: int
        callee: int
        count: int = 1
    return Position, Range, Routine, Arc

def const(c):  # a frozenset's repr follows the process's string hashes
    if hasattr(c, "co_code"):
        return canonical(c)
    return repr(sorted(map(const, c))) if isinstance(c, frozenset) else repr(c)

def canonical(code):  # everything of a code object (marshal's bytes depend on reference counts)
    names = [f for f in sorted(dir(code)) if f.startswith("co_") and not callable(getattr(code, f))]
    return repr([const(c) for c in code.co_consts] + [getattr(code, f) for f in names if f != "co_consts"])

def dumps(cls):
    out = {}
    for name, fn in sorted(vars(cls).items()):
        code = getattr(fn, "__code__", None)
        generated = code is not None and code.co_filename.startswith(("<attrs generated", "<string>"))
        if generated and name != "__hash__":  # attrs' holds a per-process string hash
            out[name] = hashlib.sha256(canonical(code).encode()).hexdigest()
    return out

with cached_generated_code() as codes:
    made = classes()
result = {c.__name__: dumps(c) for c in made}
result["compiled"] = None if codes is None else codes.compiled
result["used"] = None if codes is None else len(codes.used)
print(json.dumps(result))
"""


def _start(cache: Path, *, off: bool = False) -> dict[str, object]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "analysis"), str(ROOT / "server")])}  # fmt: skip
    env.pop("GMONLENS_CACHE", None)
    if off:
        env["GMONLENS_CACHE"] = "off"
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, check=True)
    result: dict[str, object] = json.loads(out.stdout)
    return result


def _entries(cache: Path) -> list[Path]:
    return sorted((cache / "gmonlens").glob(f"{generated_code.KIND}-*"))


def test_a_start_with_the_entry_makes_the_classes_compiling_makes(tmp_path: Path) -> None:
    plain = _start(tmp_path, off=True)
    assert plain["compiled"] is None and not (tmp_path / "gmonlens").exists()
    assert all(plain[c] for c in ("Position", "Range", "Routine", "Arc"))  # generated methods seen
    first = _start(tmp_path)
    assert first["compiled"] == first["used"] and isinstance(first["used"], int) and first["used"] >= 4
    (entry,) = _entries(tmp_path)
    written = entry.stat().st_mtime_ns
    second = _start(tmp_path)
    assert second["compiled"] == 1  # the frozen class's __hash__ only (a per-process hash in it)
    assert second["used"] == first["used"]
    for got in (first, second):
        assert {k: v for k, v in got.items() if k not in ("compiled", "used")} == {
            k: v for k, v in plain.items() if k not in ("compiled", "used")
        }
    assert _entries(tmp_path) == [entry] and entry.stat().st_mtime_ns >= written  # not rewritten: a hit


def test_the_hooks_are_gone_after_the_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    import attr._make

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("GMONLENS_CACHE", raising=False)
    with generated_code.cached_generated_code() as codes:
        assert codes is not None
        assert "compile" in vars(attr._make) and "exec" in vars(dataclasses)

        @dataclasses.dataclass
        class Made:
            x: int

    assert Made(3).x == 3 and codes.compiled >= 1
    assert "compile" not in vars(attr._make) and "exec" not in vars(dataclasses)


def test_the_cache_off_replaces_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    import attr._make

    monkeypatch.setenv("GMONLENS_CACHE", "off")
    with generated_code.cached_generated_code() as codes:
        assert codes is None
        assert "compile" not in vars(attr._make) and "exec" not in vars(dataclasses)


@pytest.mark.parametrize(
    "stored",
    [
        ["not", "a", "dict"],
        {b"short": b"x"},
        {b"k" * 16: 5},
    ],
    ids=["list", "short-key", "int-value"],
)
def test_an_entry_of_the_wrong_shape_is_not_used(stored: object, tmp_path: Path) -> None:
    os.environ["XDG_CACHE_HOME"] = str(tmp_path)
    try:
        assert diskcache.store(generated_code.KIND, generated_code.entry_key(), stored)
    finally:
        del os.environ["XDG_CACHE_HOME"]
    got = _start(tmp_path)
    assert got["compiled"] == got["used"]  # everything compiled, then written anew
    assert len(_entries(tmp_path)) == 1 and _start(tmp_path)["compiled"] == 1


def test_a_blob_that_is_no_code_of_that_file_is_compiled() -> None:
    source = "def f(x):\n    return x + 1\n"
    codes = generated_code.Codes({})
    good = codes.code(source, "<made>", 0)
    key = next(iter(codes.used))
    for blob in (
        b"\x00garbage",
        generated_code.marshal.dumps(42),
        codes.used[key].replace(b"<made>", b"<mode>"),
    ):
        again = generated_code.Codes({key: blob})
        code = again.code(source, "<made>", 0)
        assert again.compiled == 1 and code == good
    hit = generated_code.Codes(dict(codes.used))
    assert hit.code(source, "<made>", 0) == good and hit.compiled == 0
