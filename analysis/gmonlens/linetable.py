"""DWARF line tables: address -> (source file, line). An I/O module (reads the ELF through pyelftools)."""

from __future__ import annotations

import os
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class LineTable:
    """All line programs of an executable as address-sorted sequences.

    `lookup` gives the row covering an address: the last row at or below it within a sequence
    (later rows at one address supersede earlier ones), nothing past a sequence's end. Files are
    paths as recorded in DWARF (directory joined, made absolute with the CU's comp_dir when
    relative); lines are 1-based.
    """

    starts: tuple[int, ...]  # first address of each sequence, ascending
    sequences: tuple[tuple[list[int], list[int], list[int]], ...]  # (addresses, file ids, lines)
    files: tuple[str, ...]

    def lookup(self, address: int) -> tuple[str, int] | None:
        i = bisect_right(self.starts, address) - 1
        if i < 0:
            return None
        addrs, fids, lines = self.sequences[i]
        if address >= addrs[-1]:  # the last entry is the end of the sequence
            return None
        j = bisect_right(addrs, address) - 1
        return self.files[fids[j]], lines[j]

    def run_start(self, address: int) -> int | None:
        """Start of the run of bytes around `address` that map to the same (file, line): where
        gprof's line-granularity symbol for `address` begins. None without line information."""
        i = bisect_right(self.starts, address) - 1
        if i < 0:
            return None
        addrs, fids, lines = self.sequences[i]
        if address >= addrs[-1]:
            return None
        j = bisect_right(addrs, address) - 1
        key = (fids[j], lines[j])
        while True:
            a = addrs[j]
            if a == addrs[0]:
                return a
            k = bisect_right(addrs, a - 1) - 1  # the row covering the byte before this row
            if (fids[k], lines[k]) != key:
                return a
            j = k

    def to_plain(self) -> tuple[Any, ...] | None:
        """Compact plain data for the disk cache (`from_plain` reads it back): each sequence's
        columns as machine arrays (u64 addresses, u32 file ids, i64 lines). None when a value
        does not fit (a damaged line program): such a table is not cached."""
        try:
            seqs = tuple(
                (array("Q", a).tobytes(), array("I", f).tobytes(), array("q", n).tobytes())
                for a, f, n in self.sequences
            )
        except (OverflowError, TypeError):
            return None
        return (self.starts, seqs, self.files)

    @classmethod
    def from_plain(cls, value: Any) -> LineTable:
        """A table from `to_plain` data after checking its shape: types, equal column lengths,
        file ids in range (raises ValueError). Columns come back through arrays, so every element
        is an int by construction."""

        def ok(cond: bool) -> None:
            if not cond:
                raise ValueError("line table of the wrong shape")

        ok(isinstance(value, tuple) and len(value) == 3)
        starts, plain, files = value
        ok(isinstance(starts, tuple) and isinstance(plain, tuple) and isinstance(files, tuple))
        ok(set(map(type, files)) <= {str} and set(map(type, plain)) <= {tuple})
        ok(set(map(type, starts)) <= {int} and len(starts) == len(plain) and list(starts) == sorted(starts))
        seqs: list[tuple[list[int], list[int], list[int]]] = []
        for seq, start in zip(plain, starts, strict=True):
            ok(len(seq) == 3 and set(map(type, seq)) <= {bytes})
            cols = array("Q"), array("I"), array("q")
            for col, raw in zip(cols, seq, strict=True):
                ok(len(raw) % col.itemsize == 0)
                col.frombytes(raw)
            addrs, fids, lines = (c.tolist() for c in cols)
            ok(0 < len(addrs) == len(fids) == len(lines) and addrs[0] == start and max(fids) < len(files))
            seqs.append((addrs, fids, lines))
        return cls(starts, tuple(seqs), files)

    @classmethod
    def empty(cls) -> LineTable:
        return cls((), (), ())

    @classmethod
    def from_elf(cls, path: str, *, bfd: bool = False) -> LineTable:
        """Read every CU's line program; an ELF without `.debug_line` gives an empty table.

        `bfd=True`: BFD 2.40's answers (see `lines_at`): DWARF 5's default file register names
        the unit's main file, and where units' sequences overlap, the earliest unit's is kept whole
        (later units' sequences are dropped where they start inside it).
        """
        files: list[str] = []
        file_ids: dict[str, int] = {}
        seqs: list[tuple[list[int], list[int], list[int]]] = []
        for prog, names, base, data in _programs(path):
            local: dict[int, int] = {}
            default_file = 0 if bfd and base == 0 else 1
            for addrs, fnums, lines in decode_sequences(prog, data, default_file=default_file):
                fids = []
                for f in fnums:
                    fid = local.get(f)
                    if fid is None:
                        idx = f - base
                        name = names[idx] if 0 <= idx < len(names) else "??"
                        fid = file_ids.get(name)
                        if fid is None:
                            fid = file_ids[name] = len(files)
                            files.append(name)
                        local[f] = fid
                    fids.append(fid)
                seqs.append((addrs, fids, lines))
        if bfd:
            seqs = _first_units_only(seqs)
        seqs.sort(key=lambda q: q[0][0])
        return cls(tuple(q[0][0] for q in seqs), tuple(seqs), tuple(files))


def lines_at(path: str, wanted: set[int], *, bfd: bool = False) -> dict[int, tuple[str, int]]:
    """(file, line) of each address in `wanted` that a line-table row covers, as `lookup` gives.

    Cheaper than a whole LineTable: only rows at wanted addresses are kept. An address covered by
    a sequence without a row of its own (rare: code entered mid-row) falls back to a full table.

    `bfd=True` answers as GNU BFD 2.40 does (so gprof and `addr2line`): in DWARF 5, rows under
    the default file register (no DW_LNS_set_file since the sequence began) name the unit's main
    file (entry 0), not entry 1; and an address that several units' sequences cover is answered
    from the first unit. The default gives the true source position (what editors show).
    """
    out: dict[int, tuple[str, int]] = {}
    giver: dict[int, int] = {}
    spans: list[tuple[int, int]] = []
    unit_spans: list[tuple[int, int, int]] = []
    for unit, (prog, names, base, data) in enumerate(_programs(path)):
        first = len(spans)
        default_file = 0 if bfd and base == 0 else 1
        for addrs, fnums, lines in decode_sequences(prog, data, wanted, spans, default_file):
            for address, f, line in zip(addrs[:-1], fnums[:-1], lines[:-1], strict=True):
                if bfd and address in giver and giver[address] != unit:
                    continue  # an earlier unit has a row here: BFD answers from that one
                idx = f - base
                out[address] = (names[idx] if 0 <= idx < len(names) else "??", line)
                giver[address] = unit
        unit_spans.extend((lo, hi, unit) for lo, hi in spans[first:])
    missing = [a for a in wanted if a not in out and any(lo <= a < hi for lo, hi in spans)]
    if bfd:
        missing += _claimed_by_earlier_unit(unit_spans, giver)
    if missing:
        table = LineTable.from_elf(path, bfd=bfd)
        for a in missing:
            hit = table.lookup(a)
            if hit is not None:
                out[a] = hit
    return out


def _claimed_by_earlier_unit(unit_spans: list[tuple[int, int, int]], giver: dict[int, int]) -> list[int]:
    """Addresses answered from one unit while an earlier unit's sequence also covers them.

    Sequences of different units rarely overlap (a linker-discarded copy left at address 0 is the
    usual case), so only addresses inside overlaps are examined one by one.
    """
    ordered = sorted(unit_spans)
    overlaps: list[tuple[int, int]] = []
    reach = -1
    for lo, hi, _ in ordered:
        if lo < reach:
            overlaps.append((lo, min(hi, reach)))
        reach = max(reach, hi)
    if not overlaps:
        return []
    out = []
    for a, unit in giver.items():
        if any(lo <= a < hi for lo, hi in overlaps) and any(
            lo <= a < hi and u < unit for lo, hi, u in unit_spans
        ):
            out.append(a)
    return out


def _first_units_only(
    seqs: list[tuple[list[int], list[int], list[int]]],
) -> list[tuple[list[int], list[int], list[int]]]:
    """Sequences (in unit order) without those that start inside an earlier-kept one."""
    kept: list[tuple[list[int], list[int], list[int]]] = []
    covered: list[tuple[int, int]] = []
    for q in seqs:
        lo, hi = q[0][0], q[0][-1]
        if any(a <= lo < b for a, b in covered):
            continue
        kept.append(q)
        covered.append((lo, hi))
    return kept


def _programs(path: str) -> Iterator[tuple[Any, list[str], int, bytes]]:
    """Each CU's line program with its file names, first file number and the section bytes.

    DWARF 5 line programs (gcc 11 and later) are read here without pyelftools, whose import and
    unit parsing cost more than the rest of a first report on SQLite; anything else (DWARF 2-4,
    whose compilation directory is in .debug_info, compressed sections, unusual forms) goes
    through pyelftools.
    """
    fast = _programs_v5(path)
    if fast is not None:
        yield from fast
        return
    from elftools.elf.elffile import ELFFile

    from .errors import ElfError
    from .files import open_regular

    with open_regular(path, "executable", ElfError) as fh:
        elf = ELFFile(fh)
        if not elf.has_dwarf_info() or elf.get_section_by_name(".debug_line") is None:
            return
        dwarf = elf.get_dwarf_info()
        sec = dwarf.debug_line_sec
        if sec is None:
            return
        sec.stream.seek(0)
        data = sec.stream.read()
        for cu in dwarf.iter_CUs():
            prog = dwarf.line_program_for_CU(cu)
            if prog is None:
                continue
            version = prog.header.version
            dirs = prog.header["include_directory"]
            if version >= 5 and dirs:  # directory 0 is the compilation directory (DWARF 5 §6.2.4)
                comp_dir = _text(dirs[0])
            else:  # DWARF 2-4: from the unit's DIE (parsing it is the costly part)
                comp_dir = _attr_str(cu.get_top_DIE().attributes.get("DW_AT_comp_dir"))
            yield prog, _file_names(prog, comp_dir), (0 if version >= 5 else 1), data


class _Structs:
    def __init__(self, address_size: int, little_endian: bool) -> None:
        self.address_size = address_size
        self.little_endian = little_endian


class _Program:
    """What `decode_sequences` reads of a line program (pyelftools' LineProgram shape)."""

    def __init__(self, header: dict[str, Any], start: int, end: int, structs: _Structs) -> None:
        self.header = header
        self.program_start_offset = start
        self.program_end_offset = end
        self.structs = structs


_SHF_COMPRESSED = 0x800


def _programs_v5(path: str) -> list[tuple[Any, list[str], int, bytes]] | None:
    """DWARF 5 line programs of `path` in section order, or None when pyelftools must read them."""
    import struct

    from .elf import _headers
    from .errors import ElfError
    from .files import read_regular

    try:
        blob = read_regular(path, 1 << 32, "executable", ElfError)
        _asize, little, _machine, sections, _loads = _headers(path, blob)
    except (ElfError, struct.error, IndexError, ValueError):
        return None
    by_name = {sec.name: sec for sec in sections}
    line = by_name.get(".debug_line")
    if line is None:
        return []
    strs: dict[int, bytes] = {}
    for form, name in ((0x1F, ".debug_line_str"), (0x0E, ".debug_str")):
        sec = by_name.get(name)
        if sec is not None:
            if sec.flags & _SHF_COMPRESSED:
                return None
            strs[form] = blob[sec.offset : sec.offset + sec.size]
    if line.flags & _SHF_COMPRESSED or line.type == 8:  # SHT_NOBITS
        return None
    data = blob[line.offset : line.offset + line.size]
    e = "<" if little else ">"
    out: list[tuple[Any, list[str], int, bytes]] = []
    pos = 0
    try:
        while pos < len(data):
            unit = _v5_unit(data, pos, e, strs, little)
            if unit is None:
                return None
            prog, names, pos = unit
            out.append((prog, names, 0, data))
    except (struct.error, IndexError, ValueError, UnicodeDecodeError):
        return None
    return out


def _v5_unit(
    data: bytes, pos: int, e: str, strs: dict[int, bytes], little: bool
) -> tuple[_Program, list[str], int] | None:
    """One DWARF 5 line program header (§6.2.4) at `pos`: (program, file names, next unit)."""
    import struct

    length = struct.unpack_from(e + "I", data, pos)[0]
    pos += 4
    offset_size = 4
    if length == 0xFFFFFFFF:
        length = struct.unpack_from(e + "Q", data, pos)[0]
        pos += 8
        offset_size = 8
    end = pos + length
    version = struct.unpack_from(e + "H", data, pos)[0]
    if version != 5 or end > len(data):
        return None
    address_size = data[pos + 2]
    pos += 4
    header_length = int.from_bytes(data[pos : pos + offset_size], "little" if little else "big")
    pos += offset_size
    start = pos + header_length
    min_len, _max_ops, _is_stmt, line_base, line_range, opcode_base = struct.unpack_from("BBBbBB", data, pos)
    pos += 6
    std_lengths = list(data[pos : pos + opcode_base - 1])
    pos += opcode_base - 1

    def form_value(form: int, at: int) -> tuple[object, int]:
        if form == 0x08:  # DW_FORM_string
            nul = data.index(b"\0", at)
            return data[at:nul], nul + 1
        if form in strs:  # line_strp, strp
            off = int.from_bytes(data[at : at + offset_size], "little" if little else "big")
            table = strs[form]
            nul = table.index(b"\0", off)
            return table[off:nul], at + offset_size
        if form == 0x0F:  # udata
            return _uleb(data, at)
        fixed = {0x0B: 1, 0x05: 2, 0x06: 4, 0x07: 8, 0x1E: 16}.get(form)
        if fixed is not None:
            return int.from_bytes(data[at : at + fixed], "little" if little else "big"), at + fixed
        if form == 0x09:  # block
            n, at = _uleb(data, at)
            return data[at : at + n], at + n
        raise ValueError(f"DW_FORM 0x{form:x} in a line table header")

    def entries(at: int) -> tuple[list[tuple[bytes, int]], int]:
        count = data[at]
        at += 1
        formats = []
        for _ in range(count):
            ctype, at = _uleb(data, at)
            form, at = _uleb(data, at)
            formats.append((ctype, form))
        n, at = _uleb(data, at)
        if n and (not formats or n > len(data) - at):  # each entry takes at least a byte
            raise ValueError("line table header claims more entries than it holds")
        rows = []
        for _ in range(n):
            path, index = b"", 0
            for ctype, form in formats:
                value, at = form_value(form, at)
                if ctype == 1 and isinstance(value, bytes):  # DW_LNCT_path
                    path = value
                elif ctype == 2 and isinstance(value, int):  # DW_LNCT_directory_index
                    index = value
            rows.append((path, index))
        return rows, at

    dir_rows, pos = entries(pos)
    file_rows, pos = entries(pos)
    dirs = [_text(d) for d, _ in dir_rows]
    comp_dir = dirs[0] if dirs else ""
    names = []
    for name, di in file_rows:
        d = dirs[di] if 0 <= di < len(dirs) else ""
        if d and not os.path.isabs(d) and comp_dir:
            d = os.path.join(comp_dir, d)
        text = _text(name)
        names.append(os.path.normpath(os.path.join(d, text)) if d else text)
    header = {
        "minimum_instruction_length": min_len,
        "line_base": line_base,
        "line_range": line_range,
        "opcode_base": opcode_base,
        "standard_opcode_lengths": std_lengths,
    }
    return _Program(header, start, end, _Structs(address_size, little)), names, end


def _text(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _attr_str(attr: object) -> str:
    return "" if attr is None else _text(getattr(attr, "value", b""))


def _file_names(prog: object, comp_dir: str) -> list[str]:
    header = prog.header  # type: ignore[attr-defined]
    dirs = [_text(d) for d in header["include_directory"]]
    version = header.version
    out = []
    for fe in header["file_entry"]:
        name = _text(fe.name)
        di = fe.dir_index
        if version >= 5:
            d = dirs[di] if 0 <= di < len(dirs) else ""
        else:
            d = comp_dir if di == 0 else (dirs[di - 1] if 0 < di <= len(dirs) else "")
        if d and not os.path.isabs(d) and comp_dir:
            d = os.path.join(comp_dir, d)
        out.append(os.path.normpath(os.path.join(d, name)) if d else name)
    return out


def _uleb(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def _sleb(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            if b & 0x40:
                result -= 1 << shift
            return result, pos


def decode_sequences(
    prog: Any,
    data: bytes,
    wanted: set[int] | None = None,
    spans: list[tuple[int, int]] | None = None,
    default_file: int = 1,
) -> list[tuple[list[int], list[int], list[int]]]:
    """The sequences of one line program as (addresses, file numbers, lines); each sequence's
    last address is its end (the end_sequence row), with the last row's file and line repeated.
    With `wanted`, only rows at those addresses are kept (and each sequence's [start, end) is
    appended to `spans`).

    The header comes from pyelftools; the opcodes are decoded here, over the raw section bytes,
    because pyelftools' per-opcode objects cost seconds on large programs (DWARF 2-5, §6.2).
    Empty sequences are dropped. `default_file` is the file register's value at each sequence's
    start (the standard says 1; see `lines_at` for BFD's reading of DWARF 5).
    """
    h = prog.header
    pos = prog.program_start_offset
    end = prog.program_end_offset
    min_len = h["minimum_instruction_length"]
    line_base, line_range, opcode_base = h["line_base"], h["line_range"], h["opcode_base"]
    std_lengths = list(h["standard_opcode_lengths"])
    structs = prog.structs
    asize = structs.address_size
    order: Literal["little", "big"] = "little" if structs.little_endian else "big"
    out: list[tuple[list[int], list[int], list[int]]] = []
    addrs: list[int] = []
    files: list[int] = []
    lines: list[int] = []
    address, file, line = 0, default_file, 1
    const_add = ((255 - opcode_base) // line_range) * min_len
    addr_step = [(max(op - opcode_base, 0) // line_range) * min_len for op in range(256)]
    line_step = [line_base + max(op - opcode_base, 0) % line_range for op in range(256)]
    a_add, f_add, l_add = addrs.append, files.append, lines.append
    keep_all = wanted is None
    keep: set[int] = wanted or set()
    seq_start = -1
    while pos < end:
        op = data[pos]
        pos += 1
        if op >= opcode_base:
            address += addr_step[op]
            line += line_step[op]
            if keep_all or address in keep:
                a_add(address)
                f_add(file)
                l_add(line)
            if seq_start < 0:
                seq_start = address
            continue
        # the other opcodes, most frequent first (gcc: set_column, negate_stmt, copy)
        if op == 5:  # set_column: skip its ULEB operand
            while data[pos] & 0x80:
                pos += 1
            pos += 1
            continue
        if op == 6 or op == 7 or op == 10 or op == 11:  # negate_stmt, basic_block, prologue/epilogue
            continue
        if op == 0:  # extended
            length, pos = _uleb(data, pos)
            if length == 0:
                continue
            sub = data[pos]
            nxt = pos + length
            if sub == 1:  # DW_LNE_end_sequence
                if spans is not None and seq_start >= 0:
                    spans.append((seq_start, address))
                seq_start = -1
                if addrs:
                    addrs.append(address)
                    files.append(files[-1])
                    lines.append(lines[-1])
                    out.append((addrs, files, lines))
                addrs, files, lines = [], [], []
                a_add, f_add, l_add = addrs.append, files.append, lines.append
                address, file, line = 0, default_file, 1
            elif sub == 2:  # DW_LNE_set_address
                address = int.from_bytes(data[pos + 1 : pos + 1 + min(asize, length - 1)], order)
            pos = nxt
        elif op == 1:  # DW_LNS_copy
            if keep_all or address in keep:
                addrs.append(address)
                files.append(file)
                lines.append(line)
            if seq_start < 0:
                seq_start = address
        elif op == 2:  # advance_pc
            b = data[pos]
            if b < 0x80:
                pos += 1
                address += b * min_len
            else:
                v, pos = _uleb(data, pos)
                address += v * min_len
        elif op == 3:  # advance_line
            b = data[pos]
            if b < 0x80:  # one-byte SLEB128
                pos += 1
                line += b - 0x80 if b & 0x40 else b
            else:
                v, pos = _sleb(data, pos)
                line += v
        elif op == 4:  # set_file
            file, pos = _uleb(data, pos)
        elif op == 8:  # const_add_pc
            address += const_add
        elif op == 9:  # fixed_advance_pc
            address += int.from_bytes(data[pos : pos + 2], order)
            pos += 2
        else:  # set_column, negate_stmt, basic_block, prologue/epilogue, isa, unknown
            for _ in range(std_lengths[op - 1] if op - 1 < len(std_lengths) else 0):
                _, pos = _uleb(data, pos)
    return out
