"""A program's binary opened for tests, through the engine's facade (`gmonlens.load.program.open_elf`:
only the facade opens a program's files). Each helper reads without the disk cache."""

from __future__ import annotations

from gmonlens.binary.elffile import ElfFile
from gmonlens.binary.image import ElfImage, read_elf
from gmonlens.dwarf.declarations import DwarfIndex
from gmonlens.dwarf.line_table import LineTable, lines_at
from gmonlens.load.program import open_elf

__all__ = ["dwarf_index", "line_table", "line_tables", "lines_at_path", "open_elf", "read_image"]


def read_image(path: str) -> ElfImage:
    """`read_elf` of the executable at `path`."""
    with open_elf(str(path)) as elf:
        return read_elf(elf)


def dwarf_index(path: str) -> DwarfIndex:
    """A DWARF index of the executable at `path`, reading through one open file (kept open while
    the index lives, as `Program`'s is)."""
    elf: ElfFile = open_elf(str(path))
    return DwarfIndex(str(path), elf.with_budget)


def line_table(path: str, *, bfd: bool = False) -> LineTable:
    with open_elf(str(path)) as elf:
        return LineTable.from_elf(elf, bfd=bfd)


def line_tables(path: str) -> tuple[LineTable, LineTable]:
    """`LineTable.pair_from_elf`: (the true positions, BFD's)."""
    with open_elf(str(path)) as elf:
        return LineTable.pair_from_elf(elf)


def lines_at_path(path: str, wanted: set[int], *, bfd: bool = False) -> dict[int, tuple[str, int]]:
    with open_elf(str(path)) as elf:
        return lines_at(elf, wanted, bfd=bfd)
