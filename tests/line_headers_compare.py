"""The line programs read by the own header reader (`gmonlens.dwarf.line_headers._own_programs`)
against pyelftools' reading (`line_headers.programs` with the own reader turned off), for the fast
tests on hand-built headers and the tests on compiled programs (DWARF 2-5)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from binaries import open_elf
from gmonlens.dwarf import line_headers
from gmonlens.dwarf.line_table import LineTable, lines_at

_FIELDS = ("minimum_instruction_length", "line_base", "line_range", "opcode_base", "standard_opcode_lengths")


def facts(item: tuple[Any, ...]) -> tuple[Any, ...]:
    """What the decoding and the tables read of one `programs` item: the header's opcode facts,
    where the opcodes lie, the address size and byte order, the file names and the first file
    number."""
    prog, names, base = item[0], item[1], item[2]
    header = {k: list(prog.header[k]) if k == "standard_opcode_lengths" else prog.header[k] for k in _FIELDS}
    structs = prog.structs
    return (header, prog.program_start_offset, prog.program_end_offset, structs.address_size,
            structs.little_endian, list(names), base)  # fmt: skip


@contextmanager
def pyelftools_only() -> Iterator[None]:
    """`line_headers` with the own reader declining every file: pyelftools reads the headers."""
    real = line_headers._own_programs
    line_headers._own_programs = lambda *a, **k: None  # type: ignore[assignment]
    try:
        yield
    finally:
        line_headers._own_programs = real  # type: ignore[assignment]


def own_facts(path: str) -> list[tuple[Any, ...]] | None:
    """`facts` of each program the own reader reads (None: it declines the file)."""
    with open_elf(path) as elf:
        own = line_headers._own_programs(elf)
    return None if own is None else [facts(p) for p in own]


def pyelftools_facts(path: str) -> list[tuple[Any, ...]]:
    with pyelftools_only(), open_elf(path) as elf:
        return [facts(p) for p in line_headers.programs(elf)]


def _tables(path: str) -> tuple[Any, ...]:
    with open_elf(path) as elf:
        plain, bfd = LineTable.pair_from_elf(elf)
    wanted = {a for seq in plain.sequences for a in list(seq[0])[::3]}
    wanted |= {a + 1 for a in wanted}
    with open_elf(path) as elf:
        at_plain = lines_at(elf, wanted)
    with open_elf(path) as elf:
        at_bfd = lines_at(elf, wanted, bfd=True)
    return plain.to_plain(), bfd.to_plain(), at_plain, at_bfd


def assert_programs_as_pyelftools(path: str) -> int:
    """The own reader reads every line program of `path` and gives what pyelftools gives (the
    same programs in the same order: header facts, file names, first file number), and so the
    same line tables, both readings, and the same `lines_at` answers. Returns how many programs."""
    own = own_facts(path)
    assert own is not None, "the own reader declined the file"
    want = pyelftools_facts(path)
    assert len(own) == len(want), "another number of programs"
    for k, (got, expected) in enumerate(zip(own, want, strict=True)):
        assert got == expected, f"program {k} differs"
    mine = _tables(path)
    with pyelftools_only():
        theirs = _tables(path)
    assert mine == theirs, "line tables differ"
    return len(own)
