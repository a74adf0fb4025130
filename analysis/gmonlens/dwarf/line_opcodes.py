"""DWARF line-program opcodes -> rows (DWARF 2-5, §6.2.5): the decoding loop over the raw
`.debug_line` bytes; and DWARF's primitive encodings (LEB128 numbers, strings as text). Pure: the
headers come from `line_headers`."""

from __future__ import annotations

from typing import Any, Literal

from gmonlens.binary.budget import Budget


def text(value: object) -> str:
    """A DWARF string attribute's value as text (bytes decoded as UTF-8, bad bytes replaced)."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def uleb(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def sleb(data: bytes, pos: int) -> tuple[int, int]:
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


# Longer than 80 lines on purpose: one loop over the opcodes with the state machine's registers in
# locals. Split into functions, every row would pay calls and a round trip of the registers, and
# this loop decodes every row of every line table a report or the server reads.
def decode_sequences(
    prog: Any,
    data: bytes,
    wanted: set[int] | None = None,
    spans: list[tuple[int, int]] | None = None,
    default_file: int = 1,
    budget: Budget | None = None,
) -> list[tuple[list[int], list[int], list[int]]]:
    """The sequences of one line program as (addresses, file numbers, lines); each sequence's
    last address is its end (the end_sequence row), with the last row's file and line repeated.
    With `wanted`, only rows at those addresses are kept (and each sequence's [start, end) is
    appended to `spans`).

    `prog` comes from `line_headers.programs` (pyelftools' LineProgram or its DWARF 5 twin); the
    opcodes are decoded here, over the raw section bytes, because pyelftools' per-opcode objects
    cost seconds on large programs (DWARF 2-5, §6.2).
    Empty sequences are dropped. `default_file` is the file register's value at each sequence's
    start (the standard says 1; see `lines_at` for BFD's reading of DWARF 5). Rows kept are
    charged to `budget` ("line-table rows"; raises `budget.LimitError` past it).
    """
    pos, end = prog.program_start_offset, prog.program_end_offset
    min_len, opcode_base, std_lengths, const_add, addr_step, line_step = _opcodes(prog.header)
    asize = prog.structs.address_size
    order: Literal["little", "big"] = "little" if prog.structs.little_endian else "big"
    out: list[tuple[list[int], list[int], list[int]]] = []
    addrs: list[int] = []
    files: list[int] = []
    lines: list[int] = []
    address, file, line = 0, default_file, 1
    a_add, f_add, l_add = addrs.append, files.append, lines.append
    keep_all = wanted is None
    keep: set[int] = wanted or set()
    seq_start = -1
    room = budget.left("line-table rows") if budget is not None else 1 << 62
    # every row kept, no span asked, and fewer rows possible than the budget has room for (a row
    # takes at least a byte): rows are appended with no check, and counted per sequence
    plain = keep_all and spans is None and end - pos <= room
    while pos < end:
        op = data[pos]
        pos += 1
        if op >= opcode_base:  # special opcode: a row (most rows)
            address += addr_step[op]
            line += line_step[op]
            if plain:
                a_add(address)
                f_add(file)
                l_add(line)
                continue
        # the other opcodes, most frequent first (gcc: set_column, negate_stmt, copy, advance_line)
        elif op == 5:  # set_column: skip its ULEB operand
            while data[pos] & 0x80:
                pos += 1
            pos += 1
            continue
        elif op == 6:  # negate_stmt
            continue
        elif op == 1:  # DW_LNS_copy: a row
            if plain:
                a_add(address)
                f_add(file)
                l_add(line)
                continue
        elif op == 3:  # advance_line
            b = data[pos]
            if b < 0x80:  # one-byte SLEB128
                pos += 1
                line += b - 0x80 if b & 0x40 else b
            else:
                v, pos = sleb(data, pos)
                line += v
            continue
        elif op == 4:  # set_file
            file, pos = uleb(data, pos)
            continue
        elif op == 0:  # extended
            length, pos = uleb(data, pos)
            if length == 0:
                continue
            sub = data[pos]
            nxt = pos + length
            if sub == 1:  # DW_LNE_end_sequence
                if spans is not None and seq_start >= 0:
                    spans.append((seq_start, address))
                seq_start = -1
                if plain:
                    room -= len(addrs)
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
            continue
        else:  # the rare ones: no row, the address and the position move
            address, pos = _rare(op, data, pos, address, min_len, const_add, std_lengths, order)
            continue
        # a row (special opcode or copy) under `wanted`, `spans` or a tight budget
        if keep_all or address in keep:
            room -= 1
            if room < 0:
                raise _exceeded(budget)
            a_add(address)
            f_add(file)
            l_add(line)
        if seq_start < 0:
            seq_start = address
    if plain:
        room -= len(addrs)  # rows of a sequence left unended, counted as the checked loop does
    if budget is not None:
        budget.charge("line-table rows", budget.left("line-table rows") - room, ".debug_line")
    return out


def _rare(
    op: int,
    data: bytes,
    pos: int,
    address: int,
    min_len: int,
    const_add: int,
    std_lengths: list[int],
    order: Literal["little", "big"],
) -> tuple[int, int]:
    """(address, position after the operands) of a standard opcode `decode_sequences` meets
    rarely: const_add_pc, advance_pc, fixed_advance_pc, basic_block / prologue_end /
    epilogue_begin (no operands whatever the header says), set_isa and unknown ones (the
    operands the header gives, skipped)."""
    if op == 8:  # const_add_pc
        return address + const_add, pos
    if op == 2:  # advance_pc
        v, pos = uleb(data, pos)
        return address + v * min_len, pos
    if op == 9:  # fixed_advance_pc
        return address + int.from_bytes(data[pos : pos + 2], order), pos + 2
    if op != 7 and op != 10 and op != 11:
        for _ in range(std_lengths[op - 1] if op - 1 < len(std_lengths) else 0):
            _, pos = uleb(data, pos)
    return address, pos


def _opcodes(h: Any) -> tuple[int, int, list[int], int, list[int], list[int]]:
    """A line program header's opcode facts (§6.2.5.1): minimum instruction length, opcode base,
    standard opcodes' operand counts, const_add_pc's address step, and each special opcode's
    address and line steps (indexed by opcode)."""
    min_len = h["minimum_instruction_length"]
    line_base, line_range, opcode_base = h["line_base"], h["line_range"], h["opcode_base"]
    const_add = ((255 - opcode_base) // line_range) * min_len
    addr_step = [(max(op - opcode_base, 0) // line_range) * min_len for op in range(256)]
    line_step = [line_base + max(op - opcode_base, 0) % line_range for op in range(256)]
    return min_len, opcode_base, list(h["standard_opcode_lengths"]), const_add, addr_step, line_step


def _exceeded(budget: Budget | None) -> Exception:
    assert budget is not None
    return budget.exceeded("line-table rows", ".debug_line")
