"""gprof's routine rules (§3): the static-name filter, aliases and ranges."""

from __future__ import annotations

import pytest

from gmonlens.common.model import ElfSymbol
from gmonlens.profile.symbols import build_symbol_table, static_name_ok


def strtab_of(*names: str) -> tuple[bytes, list[int]]:
    """A .strtab holding `names` in order (leading NUL, as linkers write it) and their offsets."""
    blob, offsets = b"\0", []
    for n in names:
        offsets.append(len(blob))
        blob += n.encode() + b"\0"
    return blob, offsets


@pytest.mark.parametrize(
    ("names", "accepted"),
    [
        (["plain", "x"], True),
        (["has$dollar", "x"], False),
        (["f.part.0", "x"], False),
        (["f.isra.0", "x"], False),
        (["f.cold", "x"], False),
        (["o.", "x"], True),
        (["o..1", "x"], False),
        # a '.'-digit run ending at the NUL: the scan goes on into the next string
        (["f.1", "g.clone.1", "i.part.0"], False),
        (["f.1", "g.clone.1"], True),
        (["f.1", "plain"], True),
        (["m.1.2", "n.clone.3.4", "__gnu_compiled_c"], True),
        (["kern.constprop.0", "crtstuff.c"], False),
        (["kern.constprop.0", "burn"], True),
        # the scan skips only the `.constprop.` prefix, so a later suffix still rejects (sqlite)
        (["fts5StorageCount.constprop.0.isra.0", "rtreeInsertCell"], False),
        (["a.clone.3.4", "z"], True),
        (["a.clone.x", "z"], False),
    ],
    ids=lambda v: "+".join(v) if isinstance(v, list) else str(v),
)
def test_static_name_filter(names: list[str], accepted: bool) -> None:
    blob, offsets = strtab_of(*names)
    assert static_name_ok(blob, offsets[0]) is accepted


def test_scan_past_end_of_strtab_reads_zero() -> None:
    blob, offsets = strtab_of("last.7")
    assert static_name_ok(blob, offsets[0])


def sym(name: str, value: int, letter: str = "T", func: bool = True) -> ElfSymbol:
    return ElfSymbol(name, 0, value, letter, func)


@pytest.mark.parametrize(
    ("symbols", "kept"),
    [
        ([sym("work", 0x10), sym("_under", 0x10), sym("zeta", 0x10)], "work"),
        ([sym("_w2d", 0x10), sym("w2", 0x10), sym("__w2dd", 0x10)], "w2"),
        ([sym("w3", 0x10, "t"), sym("_w3g", 0x10)], "_w3g"),
        ([sym("w4lab", 0x10), sym("w4", 0x10)], "w4lab"),
        ([sym("data", 0x10, "T", False), sym("func", 0x10, "T", True)], "func"),
    ],
)
def test_alias_choice(symbols: list[ElfSymbol], kept: str) -> None:
    table = build_symbol_table(symbols, b"\0", 0x100)
    assert [s.name for s in table.symbols] == [kept]


def test_ranges_and_lookup() -> None:
    table = build_symbol_table([sym("b", 0x20), sym("a", 0x10), sym("D", 0x30, "D")], b"\0", 0x40)
    assert [(s.name, s.address, s.end_address) for s in table.symbols] == [
        ("a", 0x10, 0x1F),
        ("b", 0x20, 0x3F),
    ]
    assert table.lookup(0x0F) == -1
    assert table.lookup(0x10) == 0
    assert table.lookup(0x3F) == 1
    assert table.lookup(0x40) == -1


def test_no_static_drops_locals() -> None:
    blob, off = strtab_of("s")
    syms = [ElfSymbol("s", off[0], 0x10, "t", True), sym("g", 0x20)]
    assert [s.name for s in build_symbol_table(syms, blob, 0x40, no_static=True).symbols] == ["g"]
    assert [s.name for s in build_symbol_table(syms, blob, 0x40).symbols] == ["s", "g"]
