"""Each compilation unit's name, directory, language and producer (DW_AT_producer: the compiler and,
for GCC, the options it was given: `-grecord-gcc-switches`, on by default since GCC 4.8), read
cheaply: only each unit's header and top entry are read from `.debug_info` (a few hundred bytes a
unit, `ElfFile.section_range`), its strings from `.debug_str`/`.debug_line_str` one by one; the
abbreviation tables and string offsets whole (small). A program of 2,000 units costs some
thousands of short reads, not its debugging information.

What this reader does not read (split DWARF, DWARF 1, a malformed unit, an unknown form in a top
entry) raises `Unsupported`; the caller then says the producers are unknown. Every unit read is
charged to the file's budget as one DWARF entry per attribute.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

from gmonlens.binary.elffile import SHT_NOBITS, ElfFile, Section
from gmonlens.dwarf.die_primitives import (
    _FIXED,
    Abbrev,
    Unsupported,
    _abbrev_entries,
    _Reader,
    _Unit,
    _units,
    _value,
)

__all__ = ["UnitProducer", "Unsupported", "unit_producers"]

_NAME, _LANGUAGE, _COMP_DIR, _PRODUCER, _STR_OFFSETS_BASE = 0x03, 0x13, 0x1B, 0x25, 0x72
_WANTED = (_NAME, _LANGUAGE, _COMP_DIR, _PRODUCER)
_FIRST_WINDOW = 512  # bytes of a unit read first (its header and top entry fit, nearly always)
_MAX_WINDOW = 1 << 20  # a top entry larger than this is malformed
_STRING_WINDOW = 256
_MAX_STRING = 1 << 16  # strings are cut here (a producer is some hundreds of bytes)
_STRX = frozenset({0x1A, 0x25, 0x26, 0x27, 0x28})


@dataclass(frozen=True, slots=True)
class UnitProducer:
    """One compilation unit's top-entry facts ("" or 0 where the entry has none)."""

    offset: int  # the unit's offset in .debug_info
    name: str  # DW_AT_name as recorded (often relative to comp_dir)
    comp_dir: str
    producer: str  # DW_AT_producer, e.g. "GNU C17 12.2.0 -mtune=generic -g -p"
    language: int  # DW_LANG_*


class _Strings:
    """Strings of one section read at their offsets, a window at a time."""

    def __init__(self, elf: ElfFile, name: str) -> None:
        self.elf = elf
        self.sec = elf.find(name)

    def at(self, offset: int) -> str:
        if self.sec is None:
            raise Unsupported("a string in a section the file does not have")
        out = b""
        while len(out) < _MAX_STRING:
            chunk = self.elf.section_range(self.sec, offset + len(out), _STRING_WINDOW)
            end = chunk.find(b"\0")
            if end >= 0 or not chunk:
                out += chunk[: end if end >= 0 else len(chunk)]
                break
            out += chunk
        self.elf.budget.charge("string bytes", len(out), self.sec.name)
        return out[:_MAX_STRING].decode("utf-8", "replace")


class _ProducerReader:
    """The sections a top entry needs, read as little as they allow."""

    def __init__(self, elf: ElfFile, info: Section) -> None:
        self.elf, self.info, self.little = elf, info, elf.little
        abbrev = elf.find(".debug_abbrev")
        self.abbrev = elf.data(abbrev) if abbrev is not None else b""
        offsets = elf.find(".debug_str_offsets")
        self.str_offsets = elf.data(offsets) if offsets is not None else b""
        self.strs = _Strings(elf, ".debug_str")
        self.line_strs = _Strings(elf, ".debug_line_str")
        self.tables: dict[int, tuple[dict[int, Abbrev], Iterator[tuple[int, Abbrev]]]] = {}
        self.form_sizes: dict[tuple[int, int, int], dict[int, int]] = {}

    def abbreviation(self, offset: int, code: int) -> Abbrev | None:
        """Abbreviation `code` of the table at `offset`, the table read only as far as it (GCC puts
        a unit's own entry anywhere in its table); each entry read is charged once."""
        if offset >= len(self.abbrev):
            raise Unsupported("an abbreviation table past the end of .debug_abbrev")
        found, entries = self.tables.setdefault(offset, ({}, _abbrev_entries(self.abbrev, offset)))
        if code in found:
            return found[code]
        for key, entry in entries:
            found[key] = entry
            self.elf.budget.charge("DWARF entries", 1 + len(entry[2]), ".debug_abbrev")
            if key == code:
                return entry
        return None

    def _sizes(self, unit: _Unit) -> dict[int, int]:
        """The fixed forms' sizes in units of this address size, offset size and version."""
        key = (unit.asize, unit.osize, unit.version)
        sizes = self.form_sizes.get(key)
        if sizes is None:
            sizes = {f: (unit.asize if n == -1 else unit.osize if n == -2 else n) for f, n in _FIXED.items()}
            sizes[0x10] = unit.asize if unit.version == 2 else unit.osize  # DW_FORM_ref_addr
            self.form_sizes[key] = sizes
        return sizes

    def unit_at(self, start: int) -> tuple[UnitProducer, int]:
        """The unit at `start` of .debug_info and where the next one starts."""
        window = _FIRST_WINDOW
        while True:
            data = self.elf.section_range(self.info, start, window)
            try:
                return self._decode(start, data)
            except (IndexError, struct.error, ValueError):
                if len(data) < window or window >= _MAX_WINDOW:
                    raise Unsupported(f"a malformed unit at offset {start} of .debug_info") from None
                window *= 8

    def _decode(self, start: int, data: bytes) -> tuple[UnitProducer, int]:
        unit, first = next(_units(data, self.little))
        if unit.end <= first:
            raise Unsupported(f"a malformed unit at offset {start} of .debug_info")
        r = _Reader(data, self.little)
        code, pos = r.uleb(first)
        abbrev = self.abbreviation(unit.abbrev_offset, code)
        if abbrev is None:
            raise Unsupported(f"no abbreviation {code} for the unit at offset {start}")
        sizes = self._sizes(unit)
        values: dict[int, tuple[int, object]] = {}
        for attr, form, const in abbrev[2]:
            while form == 0x16:  # DW_FORM_indirect
                form, pos = r.uleb(pos)
            value, pos = _value(r, pos, form, const, sizes)
            values[attr] = (form, value)
        self.elf.budget.charge("DWARF entries", 1 + len(values), ".debug_info")
        if _STR_OFFSETS_BASE in values:
            base = values[_STR_OFFSETS_BASE][1]
            unit.str_offsets_base = base if isinstance(base, int) else 0
        text = {a: self._text(unit, values[a]) for a in (_NAME, _COMP_DIR, _PRODUCER) if a in values}
        language = values.get(_LANGUAGE, (0, 0))[1]
        found = UnitProducer(
            start,
            text.get(_NAME, ""),
            text.get(_COMP_DIR, ""),
            text.get(_PRODUCER, ""),
            language if isinstance(language, int) else 0,
        )
        return found, start + unit.end

    def _text(self, unit: _Unit, fv: tuple[int, object]) -> str:
        form, value = fv
        if form == 0x08 and isinstance(value, bytes):
            return value.decode("utf-8", "replace")
        if form == 0x0E and isinstance(value, int):
            return self.strs.at(value)
        if form == 0x1F and isinstance(value, int):
            return self.line_strs.at(value)
        if form in _STRX and isinstance(value, int):
            osize = unit.osize
            at = unit.str_offsets_base + value * osize
            if at + osize > len(self.str_offsets):
                raise Unsupported("a string index past the end of .debug_str_offsets")
            return self.strs.at(_Reader(self.str_offsets, self.little).uint(at, osize))
        raise Unsupported(f"a name of DW_FORM 0x{form:x}")


def unit_producers(elf: ElfFile, most: int = 1 << 16) -> list[UnitProducer]:
    """The compilation units of `elf`'s `.debug_info` in section order (at most `most`; [] without
    debugging information). Raises Unsupported (module docstring) or ElfError/LimitError."""
    info = elf.find(".debug_info")
    if info is None or info.type == SHT_NOBITS:
        return []
    reader = _ProducerReader(elf, info)
    out: list[UnitProducer] = []
    pos = 0
    size = len(elf.data(info)) if info.name.startswith(".zdebug_") or info.flags & 0x800 else info.size
    while pos < size and len(out) < most:
        unit, pos = reader.unit_at(pos)
        out.append(unit)
    return out
