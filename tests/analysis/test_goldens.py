"""Golden tests of the engine's arithmetic, with no compiler and no gprof.

The programs (tests/golden_programs.py) are symbol tables and runs described in Python; the
expected texts in tests/analysis/golden/ were printed by GNU gprof 2.40 for the ELF executable and
gmon.out built from the same descriptions (tests/record_goldens.py, run by hand). The engine is fed
in memory as the loader feeds it: symbol table, profile data, symspec tables, `compute_profile`,
`render_text` (and -r's listing).

`<program>.profile.txt` pins every figure of the engine's Profile for each variant (floats
exactly), as the engine computed them when the texts were recorded: the report prints two
decimals, the dumps show a change in the last bit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from binaries import read_image
from gmonlens.load.loader import load
from gmonlens.output.report import render_text
from golden_programs import (
    PROGRAMS,
    Program,
    Variant,
    elf_bytes,
    elf_symbols,
    engine_profile,
    engine_text,
    gmon_bytes,
    profile_dump,
)

GOLDEN = Path(__file__).resolve().parent / "golden"

CASES = [pytest.param(p, v, id=f"{p.name}.{v.id}") for p in PROGRAMS for v in p.variants]


def _golden(name: str) -> str:
    return (GOLDEN / name).read_text()


@pytest.mark.parametrize(("program", "variant"), CASES)
def test_report_matches_gprof(program: Program, variant: Variant) -> None:
    assert engine_text(program, variant) == _golden(f"{program.name}.{variant.id}.txt")


def _dumps(program: Program) -> dict[str, str]:
    """The recorded Profile dumps of `program`, by variant id."""
    out: dict[str, str] = {}
    for block in _golden(f"{program.name}.profile.txt").split("== ")[1:]:
        head, _, body = block.partition("\n")
        out[head.split(" ")[0]] = body
    return out


@pytest.mark.parametrize("program", [pytest.param(p, id=p.name) for p in PROGRAMS])
def test_profile_figures_unchanged(program: Program) -> None:
    recorded = _dumps(program)
    assert sorted(recorded) == sorted(v.id for v in program.variants)
    for v in program.variants:
        assert profile_dump(engine_profile(program, v)[0]) == recorded[v.id], v.id


@pytest.mark.parametrize("program", [pytest.param(p, id=p.name) for p in PROGRAMS])
def test_files_read_as_described(program: Program, tmp_path: Path) -> None:
    """The ELF file gprof read holds the symbols the in-memory tests use, and the whole loader,
    reading the files, prints the recorded text."""
    (tmp_path / "a.out").write_bytes(elf_bytes(program))
    (tmp_path / "gmon.out").write_bytes(gmon_bytes(program))
    image = read_image(str(tmp_path / "a.out"))
    rows, strtab = elf_symbols(program)
    assert [(s.name, s.name_offset, s.value, s.class_letter, s.is_function) for s in image.symbols] == rows
    assert image.strtab == strtab
    profile = load(str(tmp_path / "a.out"), [str(tmp_path / "gmon.out")]).profile
    args = engine_profile(program, program.variants[0])[1]
    assert program.variants[0].options == ()
    assert render_text(profile, args.report_options(profile)) == _golden(f"{program.name}.plain.txt")


@pytest.mark.parametrize(("program", "variant"), CASES)
def test_flat_order_of_the_routines_with_figures_is_the_whole_orders_part(
    program: Program, variant: Variant
) -> None:
    """The flat profile (without -z) sorts only the routines with self time or calls: the same
    order as sorting them all and keeping those."""
    from gmonlens.output.report_format import flat_order

    profile, _args = engine_profile(program, variant)
    whole = flat_order(profile)
    assert flat_order(profile, with_figures=True) == [r for r in whole if r.self_ticks or r.calls]


def test_default_excludes_are_every_routine_so_named() -> None:
    from gmonlens.common.model import Symbol
    from gmonlens.common.options import DEFAULT_EXCLUDES, default_excludes

    names = ["main", "mcount", "f", "_mcount", "mcount", "__mcleanup", "mcount_x", *DEFAULT_EXCLUDES]
    symbols = [Symbol(n, i, i, True, False) for i, n in enumerate(names)]
    assert default_excludes(symbols) == frozenset(i for i, n in enumerate(names) if n in DEFAULT_EXCLUDES)
    assert default_excludes([]) == frozenset()
