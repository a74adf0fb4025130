"""`line_opcodes.decode_sequences` on random line programs (no compiler): the rows a plain reading
of the opcodes gives (a reference decoder here, one opcode at a time as DWARF 5 §6.2.5 says),
whether every row is kept unchecked (the whole table) or each row is checked (`wanted`, `spans`,
a budget with less room than the program has bytes), with the same rows charged; past the
budget's room, LimitError."""

from __future__ import annotations

import random
import struct
from types import SimpleNamespace
from typing import Any

import pytest

from gmonlens.binary.budget import Budget, LimitError
from gmonlens.dwarf.line_opcodes import decode_sequences, sleb, uleb
from leb128 import sleb as _sleb
from leb128 import uleb as _uleb

HEADER = {
    "minimum_instruction_length": 1,
    "line_base": -5,
    "line_range": 14,
    "opcode_base": 13,
    "standard_opcode_lengths": [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1],
}
# a header claiming operands for the opcodes that have none (the decoder reads none) and two for
# set_isa (it reads two)
ODD = {**HEADER, "standard_opcode_lengths": [0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 2]}


def _program(rng: random.Random) -> bytes:
    """Random sequences of every opcode (gcc's most often), each but maybe the last ended."""
    out = bytearray()
    for _ in range(rng.randrange(1, 5)):
        out += b"\x00\x09\x02" + struct.pack("<Q", rng.choice((0x1000, 0x2000, 0x401000)))
        for _ in range(rng.randrange(60)):
            op = rng.choice((13, 13, 13, 255, 5, 5, 6, 1, 1, 3, 4, 2, 8, 9, 7, 10, 11, 12, 0))
            out.append(op)
            if op in (5, 4, 12):
                out += _uleb(rng.choice((0, 1, 3, 127, 128, 1000)))
            elif op == 2:
                out += _uleb(rng.choice((0, 4, 127, 200)))
            elif op == 3:
                out += _sleb(rng.choice((0, 1, -1, 63, -64, 64, -300)))
            elif op == 9:
                out += struct.pack("<H", rng.randrange(300))
            if op == 12:
                out += _uleb(rng.randrange(300))
            elif op == 0:  # an extended opcode nobody reads: DW_LNE_set_discriminator
                out += b"\x02\x04" + _uleb(rng.randrange(100))[:1]
        if rng.random() < 0.9:
            out += b"\x00\x01\x01"
    return bytes(out)


def _reference(
    data: bytes, default_file: int, header: dict[str, Any] = HEADER
) -> tuple[list[tuple[list[int], list[int], list[int]]], int]:
    """The sequences, one opcode at a time (`decode_sequences`' contract), and the rows made (an
    unended sequence's too: what the decoder charges)."""
    out: list[tuple[list[int], list[int], list[int]]] = []
    made = 0
    rows: list[tuple[int, int, int]] = []
    address, file, line, pos = 0, default_file, 1, 0
    while pos < len(data):
        op = data[pos]
        pos += 1
        if op >= 13:
            address += (op - 13) // 14
            line += -5 + (op - 13) % 14
            rows.append((address, file, line))
            made += 1
        elif op == 0:
            length, pos = uleb(data, pos)
            if data[pos] == 1:
                if rows:
                    rows.append((address, rows[-1][1], rows[-1][2]))
                    out.append(([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]))
                rows, address, file, line = [], 0, default_file, 1
            elif data[pos] == 2:
                address = int.from_bytes(data[pos + 1 : pos + length], "little")
            pos += length
        elif op == 1:
            rows.append((address, file, line))
            made += 1
        elif op == 2:
            n, pos = uleb(data, pos)
            address += n
        elif op == 3:
            n, pos = sleb(data, pos)
            line += n
        elif op == 4:
            file, pos = uleb(data, pos)
        elif op == 8:
            address += (255 - 13) // 14
        elif op == 9:
            address += int.from_bytes(data[pos : pos + 2], "little")
            pos += 2
        elif op == 5:  # set_column
            _, pos = uleb(data, pos)
        elif op not in (6, 7, 10, 11):  # negate_stmt, basic_block, prologue_end, epilogue_begin: none
            for _ in range(header["standard_opcode_lengths"][op - 1]):  # set_isa
                _, pos = uleb(data, pos)
    return out, made


def _prog(data: bytes, header: dict[str, Any] = HEADER) -> Any:
    return SimpleNamespace(
        program_start_offset=0,
        program_end_offset=len(data),
        header=header,
        structs=SimpleNamespace(address_size=8, little_endian=True),
    )


def _budget(room: int) -> Budget:
    budget = Budget("x", 1 << 20)
    budget.spent["line-table rows"] = budget.limit("line-table rows") - room
    return budget


@pytest.mark.parametrize("seed", range(200))
def test_every_reading_gives_the_reference_rows(seed: int) -> None:
    data = _program(random.Random(seed))
    expected, kept = _reference(data, -1)
    plain = _budget(len(data))  # room for a row a byte: rows appended unchecked
    assert decode_sequences(_prog(data), data, default_file=-1, budget=plain) == expected
    assert plain.left("line-table rows") == len(data) - kept
    tight = _budget(len(data) - 1)  # less room than bytes: each row checked
    if kept <= len(data) - 1:
        assert decode_sequences(_prog(data), data, default_file=-1, budget=tight) == expected
        assert tight.left("line-table rows") == len(data) - 1 - kept
    spans: list[tuple[int, int]] = []
    spanned = _budget(len(data))
    assert decode_sequences(_prog(data), data, spans=spans, default_file=-1, budget=spanned) == expected
    assert spanned.left("line-table rows") == len(data) - kept
    assert spans == [(addrs[0], addrs[-1]) for addrs, _, _ in expected]


@pytest.mark.parametrize("seed", range(40))
def test_wanted_rows_are_the_reference_rows_at_those_addresses(seed: int) -> None:
    data = _program(random.Random(seed))
    wanted = {a for addrs, _, _ in _reference(data, 1)[0] for a in addrs[:-1:3]}
    got = decode_sequences(_prog(data), data, wanted, default_file=1)
    rows = [
        (a, f, n) for addrs, files, lines in got for a, f, n in zip(addrs[:-1], files, lines, strict=False)
    ]
    expected = [
        (a, f, n)
        for addrs, files, lines in _reference(data, 1)[0]
        for a, f, n in zip(addrs[:-1], files, lines, strict=False)
        if a in wanted
    ]
    assert rows == expected


def test_past_the_budgets_room_is_a_limit_error() -> None:
    data = b"\x00\x09\x02" + struct.pack("<Q", 0x1000) + bytes([20] * 50) + b"\x00\x01\x01"
    with pytest.raises(LimitError):
        decode_sequences(_prog(data), data, budget=_budget(49))
    budget = _budget(50)
    assert len(decode_sequences(_prog(data), data, budget=budget)[0][0]) == 51
    assert budget.left("line-table rows") == 0


@pytest.mark.parametrize("seed", range(40))
def test_operands_are_read_as_each_opcode_has_them_whatever_the_header_says(seed: int) -> None:
    data = _program(random.Random(seed))
    expected, _ = _reference(data, 1, ODD)
    assert decode_sequences(_prog(data, ODD), data, default_file=1) == expected
