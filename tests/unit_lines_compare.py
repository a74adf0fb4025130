"""Checks of `Program.lines_of` against the whole line table, shared by the fixture tests
(tests/integration/test_unit_lines.py) and the real-program tier."""

from __future__ import annotations

from pathlib import Path

import pytest

from binaries import line_table
from gmonlens.binary.image import is_mapping_symbol
from gmonlens.load.program import Program


def assert_same_as_whole_table(exe: str) -> int:
    """Compare `lines_of` before the whole table is read with the whole table's lookup over every
    call instruction of the code; returns how many call sites the units answered."""
    program = Program(exe)
    finder = program.call_finder()
    calls = [
        at
        for c in program.image.code_sections
        for at, _ret, _target in finder._calls_in(c.address, c.address + len(c.data))
    ]
    assert calls
    whole = line_table(exe)
    want = {a: hit for a in calls if (hit := whole.lookup(a)) is not None}
    by_units: dict[int, tuple[str, int]] = {}
    rest = program._unit_lookups(calls, by_units, False)
    assert program._once.peek("linetable:False") is None  # the units answered, not the table
    assert by_units == {a: hit for a, hit in want.items() if a not in rest}
    assert len(rest) <= 8  # start-up code no unit describes (crt files: _start, .init)
    assert program.lines_of(calls) == want  # and with the whole table for those
    return len(by_units)


def assert_entry_lines_as_lines_at(exe: str, cache: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """Every routine symbol's (T/t/W, not ARM's `$t`/`$d` marks) entry line from the units holding it (`lines_of` with
    `held_only`, what a cold server load uses) equals `routine_lines`' (`lines_at`, the plain
    reading) without reading the whole table; returns how many entries it compared."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    want = Program(exe).routine_lines()
    program = Program(exe)
    entries = [
        s.value
        for s in program.image.symbols
        if s.class_letter in ("T", "t", "W") and not is_mapping_symbol(s.name)
    ]
    assert program.lines_of(entries, held_only=True) == want
    assert program._once.peek("linetable:False") is None  # the units answered, not the table
    statics = Program(exe).routine_lines(statics=True, units=True)
    assert statics == {
        s.value: want[s.value]
        for s in program.image.symbols
        if s.class_letter == "t" and s.value in want and not is_mapping_symbol(s.name)
    }
    return len(want)
