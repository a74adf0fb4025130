"""The pieces of a `.debug_info` reader that `info_reader` walks with (pure: section bytes in): unit
headers (DWARF 5 §7.5.1), abbreviation tables (§7.5.3), attribute values by form (§7.5.6),
strings, indexed addresses, references, and range lists: DWARF 2-4 `.debug_ranges` (§2.17.3) and
DWARF 5 `.debug_rnglists` (§7.25); `_code_ranges` and `_record` are the rules a code scope's
ranges and name follow (`scopes.function_scopes`). What they do not read (split DWARF,
DW_FORM_rnglistx, an unknown form) raises `Unsupported`; the caller then reads the file with
pyelftools.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping

from gmonlens.dwarf.line_opcodes import sleb, uleb

_NAME, _LOW, _HIGH, _RANGES = 0x03, 0x11, 0x12, 0x55
_ORIGIN, _SPEC, _LINKAGE, _MIPS_LINKAGE = 0x31, 0x47, 0x6E, 0x2007
_STR_OFFSETS_BASE, _ADDR_BASE = 0x72, 0x73
# forms of a fixed size (-1: the address size, -2: the offset size); others are decoded one by one
_FIXED = {0x05: 2, 0x06: 4, 0x07: 8, 0x0B: 1, 0x0C: 1, 0x11: 1, 0x12: 2, 0x13: 4, 0x14: 8, 0x19: 0,
          0x1C: 4, 0x1E: 16, 0x20: 8, 0x21: 0, 0x24: 8, 0x25: 1, 0x26: 2, 0x27: 3, 0x28: 4, 0x29: 1,
          0x2A: 2, 0x2B: 3, 0x2C: 4, 0x01: -1, 0x0E: -2, 0x17: -2, 0x1D: -2, 0x1F: -2, 0x1F20: -2,
          0x1F21: -2}  # fmt: skip
_STRING_FORMS = frozenset({0x08, 0x0E, 0x1F, 0x1A, 0x25, 0x26, 0x27, 0x28})
_REF_FORMS = frozenset({0x11, 0x12, 0x13, 0x14, 0x15})


class Unsupported(Exception):
    """Input this walker does not read (the caller falls back to pyelftools)."""


def _int(value: object) -> int:
    """An attribute value read as an integer (a malformed DIE raises ValueError)."""
    if not isinstance(value, int):
        raise ValueError("an integer attribute holds bytes")
    return value


def _tombstone(address: int) -> bool:
    return address in (0xFFFFFFFF, 0xFFFFFFFE) or address >= 0xFFFFFFFFFFFFFFFE


# unsigned integers of 1, 2, 4 and 8 bytes: each byte order's unpackers (`_Reader.uint`)
_UNPACK = {
    e: {n: struct.Struct(e + c).unpack_from for n, c in ((1, "B"), (2, "H"), (4, "I"), (8, "Q"))}
    for e in "<>"
}


class _Reader:
    def __init__(self, data: bytes, little: bool) -> None:
        self.data = data
        self.e = "<" if little else ">"
        self._unpack = _UNPACK[self.e]

    def uleb(self, pos: int) -> tuple[int, int]:
        b = self.data[pos]
        if b < 0x80:  # one byte: most values
            return b, pos + 1
        return uleb(self.data, pos)

    def sleb(self, pos: int) -> tuple[int, int]:
        return sleb(self.data, pos)

    def uint(self, pos: int, size: int) -> int:
        if size == 3:
            b = self.data[pos : pos + 3]
            return int.from_bytes(b, "little" if self.e == "<" else "big")
        return int(self._unpack[size](self.data, pos)[0])


Abbrev = tuple[int, bool, list[tuple[int, int, int]]]  # (tag, has children, [(attribute, form, const)])


def _abbrevs(data: bytes, offset: int) -> dict[int, Abbrev]:
    """code -> (tag, has children, [(attribute, form, implicit const)])."""
    return dict(_abbrev_entries(data, offset))


def _abbrev_entries(data: bytes, offset: int) -> Iterator[tuple[int, Abbrev]]:
    """The table's (code, abbreviation) one by one, as read (a caller after one code stops
    there). One-byte LEB128 numbers (nearly all of them) are read inline."""
    pos = offset
    while True:
        code = data[pos]
        code, pos = (code, pos + 1) if code < 0x80 else uleb(data, pos)
        if code == 0:
            return
        tag = data[pos]
        tag, pos = (tag, pos + 1) if tag < 0x80 else uleb(data, pos)
        children = data[pos] != 0
        pos += 1
        specs: list[tuple[int, int, int]] = []
        while True:
            name = data[pos]
            name, pos = (name, pos + 1) if name < 0x80 else uleb(data, pos)
            form = data[pos]
            form, pos = (form, pos + 1) if form < 0x80 else uleb(data, pos)
            const = 0
            if form == 0x21:
                const, pos = sleb(data, pos)
            if name == 0 and form == 0:
                break
            specs.append((name, form, const))
        yield code, (tag, children, specs)


class _Unit:
    """One unit's header facts and the values its DIEs need."""

    def __init__(self, version: int, asize: int, osize: int, start: int, end: int) -> None:
        self.version, self.asize, self.osize, self.start, self.end = version, asize, osize, start, end
        self.str_offsets_base = 8 if version >= 5 else 0
        self.addr_base = 8
        self.low_pc = 0
        self.abbrev_offset = 0


def _units(info: bytes, little: bool) -> Iterator[tuple[_Unit, int]]:
    r = _Reader(info, little)
    pos = 0
    while pos < len(info):
        length, osize = r.uint(pos, 4), 4
        start = pos
        pos += 4
        if length == 0xFFFFFFFF:
            length, osize = r.uint(pos, 8), 8
            pos += 8
        end = pos + length
        version = r.uint(pos, 2)
        if version >= 5:
            kind, asize = info[pos + 2], info[pos + 3]
            abbrev = r.uint(pos + 4, osize)
            pos += 4 + osize
            if kind in (2, 6):
                pos += 8 + osize
            elif kind in (4, 5):
                raise Unsupported("split DWARF")
        elif version >= 2:
            abbrev = r.uint(pos + 2, osize)
            asize = info[pos + 2 + osize]
            pos += 3 + osize
        else:
            raise Unsupported(f"DWARF version {version}")
        unit = _Unit(version, asize, osize, start, end)
        unit.abbrev_offset = abbrev
        yield unit, pos
        pos = end


# DW_LANG_* of languages whose names BFD demangles (as scopes._MANGLED_LANGUAGES)
_MANGLED_LANGUAGES = frozenset({0x4, 0x11, 0x13, 0x19, 0x1A, 0x1C, 0x21})


def _value(r: _Reader, pos: int, form: int, const: int, sizes: Mapping[int, int]) -> tuple[object, int]:
    """(value, next position) of one attribute of `form` at `pos`."""
    size = sizes.get(form)
    if form == 0x21:
        return const, pos
    if size is not None:
        if size == 0:
            return True, pos
        if size == 16:
            return r.data[pos : pos + 16], pos + 16
        return r.uint(pos, size), pos + size
    if form == 0x08:  # string
        end = r.data.index(b"\0", pos)
        return r.data[pos:end], end + 1
    if form in (0x0F, 0x15, 0x1A, 0x1B, 0x22, 0x23, 0x1F01, 0x1F02):  # uleb forms
        return r.uleb(pos)
    if form == 0x0D:
        return r.sleb(pos)
    if form in (0x09, 0x18):  # block, exprloc
        n, pos = r.uleb(pos)
        return r.data[pos : pos + n], pos + n
    if form in (0x0A, 0x03, 0x04):
        width = {0x0A: 1, 0x03: 2, 0x04: 4}[form]
        n = r.uint(pos, width)
        return r.data[pos + width : pos + width + n], pos + width + n
    raise Unsupported(f"DW_FORM 0x{form:x}")


def _string(unit: _Unit, form: int, value: object, sections: Mapping[str, bytes], little: bool) -> str:
    if form == 0x08:
        raw = value
    elif form in (0x0E, 0x1F):
        data = sections.get(".debug_str" if form == 0x0E else ".debug_line_str", b"")
        off = _int(value)
        raw = data[off : data.index(b"\0", off)]
    elif form in (0x1A, 0x25, 0x26, 0x27, 0x28):
        offs = sections.get(".debug_str_offsets", b"")
        at = unit.str_offsets_base + _int(value) * unit.osize
        off = _Reader(offs, little).uint(at, unit.osize)
        data = sections.get(".debug_str", b"")
        raw = data[off : data.index(b"\0", off)]
    else:
        return str(value)
    assert isinstance(raw, bytes)
    return raw.decode("utf-8", "replace")


def _address(unit: _Unit, fv: tuple[int, object], sections: Mapping[str, bytes], little: bool) -> int:
    form, value = fv
    if form in (0x1B, 0x29, 0x2A, 0x2B, 0x2C):  # addrx
        at = unit.addr_base + _int(value) * unit.asize
        return _Reader(sections.get(".debug_addr", b""), little).uint(at, unit.asize)
    return _int(value)


def _ref(unit: _Unit, fv: tuple[int, object] | None) -> int:
    """The absolute .debug_info offset a reference attribute points to (-1: none or unsupported)."""
    if fv is None:
        return -1
    form, value = fv
    if form in _REF_FORMS:
        return unit.start + _int(value)
    if form == 0x10:
        return _int(value)
    return -1


def _record(
    unit: _Unit, values: dict[int, tuple[int, object]], sections: Mapping[str, bytes], little: bool
) -> tuple[str, bool, int, int]:
    for key in (_LINKAGE, _MIPS_LINKAGE, _NAME):
        if key in values:  # the first present decides, as in scopes._name
            form, value = values[key]
            text = _string(unit, form, value, sections, little) if form in _STRING_FORMS else str(value)
            if text:
                return text, key != _NAME, -1, -1
            break
    return "", False, _ref(unit, values.get(_ORIGIN)), _ref(unit, values.get(_SPEC))


def _code_ranges(
    unit: _Unit, values: dict[int, tuple[int, object]], sections: Mapping[str, bytes], little: bool
) -> list[tuple[int, int]]:
    low, high = values.get(_LOW), values.get(_HIGH)
    if low is not None and high is not None:
        lo = _address(unit, low, sections, little)
        hi = (
            _address(unit, high, sections, little)
            if high[0] in (0x01, 0x1B, 0x29, 0x2A, 0x2B, 0x2C)
            else lo + _int(high[1])
        )
        return [(lo, hi)] if hi > lo and lo != 0 and not _tombstone(lo) else []
    rng = values.get(_RANGES)
    if rng is None:
        return []
    if rng[0] not in (0x17, 0x06, 0x07):
        if rng[0] == 0x23:
            return []  # DW_FORM_rnglistx: as dwarfdecl.code_ranges, not supported
        return []
    base = _address(unit, low, sections, little) if low is not None else 0
    offset = _int(rng[1])
    if unit.version >= 5:
        return _rnglist_code(unit, offset, base, sections, little)
    entries = _ranges_v4(unit, offset, sections, little)
    out: list[tuple[int, int]] = []
    for kind, a, b in entries:
        if kind == "base":
            base = a
            continue
        start = (0 if kind == "abs" else (base or unit.low_pc)) + a
        end = (0 if kind == "abs" else (base or unit.low_pc)) + b
        if b > a and start != 0 and not _tombstone(start):
            out.append((start, end))
    return sorted(out)


def _ranges_v4(
    unit: _Unit, offset: int, sections: Mapping[str, bytes], little: bool
) -> list[tuple[str, int, int]]:
    data = sections.get(".debug_ranges", b"")
    r = _Reader(data, little)
    top = (1 << (8 * unit.asize)) - 1
    out: list[tuple[str, int, int]] = []
    pos = offset
    while pos + 2 * unit.asize <= len(data):
        a, b = r.uint(pos, unit.asize), r.uint(pos + unit.asize, unit.asize)
        pos += 2 * unit.asize
        if a == 0 and b == 0:
            break
        out.append(("base", b, 0) if a == top else ("rel", a, b))
    return out


def _rnglist(
    unit: _Unit, offset: int, sections: Mapping[str, bytes], little: bool
) -> list[tuple[str, int, int]]:
    """The entries of the DWARF 5 range list at `offset`: ("base", address, 0), ("abs", start,
    end) or ("rel", start, end) from the base."""
    data = sections.get(".debug_rnglists", b"")
    r = _Reader(data, little)
    out: list[tuple[str, int, int]] = []
    pos = offset
    while True:
        kind = data[pos]
        if kind == 0:  # end_of_list
            return out
        entry, pos = _rle(unit, r, pos + 1, kind, sections)
        out.append(entry)


def _rle(
    unit: _Unit, r: _Reader, pos: int, kind: int, sections: Mapping[str, bytes]
) -> tuple[tuple[str, int, int], int]:
    """One range list entry of DW_RLE `kind` (not end_of_list) whose operands start at `pos`, as
    `_rnglist` gives it, and where the next entry starts."""
    asize = unit.asize
    little = r.e == "<"

    def addrx(i: int) -> int:
        return _address(unit, (0x1B, i), sections, little)

    if kind == 1:  # base_addressx
        i, pos = r.uleb(pos)
        return ("base", addrx(i), 0), pos
    if kind == 2:  # startx_endx
        i, pos = r.uleb(pos)
        j, pos = r.uleb(pos)
        return ("abs", addrx(i), addrx(j)), pos
    if kind == 3:  # startx_length
        i, pos = r.uleb(pos)
        n, pos = r.uleb(pos)
        return ("abs", addrx(i), addrx(i) + n), pos
    if kind == 4:  # offset_pair
        a, pos = r.uleb(pos)
        b, pos = r.uleb(pos)
        return ("rel", a, b), pos
    if kind == 5:  # base_address
        return ("base", r.uint(pos, asize), 0), pos + asize
    if kind == 6:  # start_end
        return ("abs", r.uint(pos, asize), r.uint(pos + asize, asize)), pos + 2 * asize
    if kind == 7:  # start_length
        a = r.uint(pos, asize)
        n, pos = r.uleb(pos + asize)
        return ("abs", a, a + n), pos
    raise Unsupported(f"DW_RLE 0x{kind:x}")


def _rnglist_code(
    unit: _Unit, offset: int, base: int, sections: Mapping[str, bytes], little: bool
) -> list[tuple[int, int]]:
    """`_code_ranges` of the DWARF 5 range list at `offset` whose base is `base` (0: none), read
    in one pass: `_rnglist`'s entries, the offset pairs (nearly all) read here, kept by
    `_code_ranges`' rule (a range with bytes, not at 0, not a tombstone), sorted."""
    data = sections.get(".debug_rnglists", b"")
    out: list[tuple[int, int]] = []
    pos, low = offset, unit.low_pc
    while True:
        kind = data[pos]
        pos += 1
        if kind == 4:  # offset_pair: two ULEB128s, of one or two bytes read here
            a = data[pos]
            if a < 0x80:
                pos += 1
            elif data[pos + 1] < 0x80:
                a, pos = (a & 0x7F) | data[pos + 1] << 7, pos + 2
            else:
                a, pos = uleb(data, pos)
            b = data[pos]
            if b < 0x80:
                pos += 1
            elif data[pos + 1] < 0x80:
                b, pos = (b & 0x7F) | data[pos + 1] << 7, pos + 2
            else:
                b, pos = uleb(data, pos)
            start = (base or low) + a
        elif kind == 0:  # end_of_list
            out.sort()
            return out
        else:
            (what, a, b), pos = _rle(unit, _Reader(data, little), pos, kind, sections)
            if what == "base":
                base = a
                continue
            start = a if what == "abs" else (base or low) + a
        if b > a and start != 0 and not _tombstone(start):
            out.append((start, start - a + b))
