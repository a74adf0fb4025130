"""-l's line symbols (`line_symbols`) against the rule written plainly: at every row address and
scope bound, the row `LineTable.lookup` gives and the name `FunctionNames.at` gives; a run starts
where they change. Random tables with what real ones have: overlapping and adjacent sequences,
several rows at one address, gaps, scopes without a name (the ELF symbol's then)."""

from __future__ import annotations

import random
from array import array

import pytest

from gmonlens.common.model import ElfSymbol, Symbol
from gmonlens.dwarf.line_table import LineTable
from gmonlens.dwarf.scopes import FunctionScopes
from gmonlens.profile.line_symbols import FunctionNames, line_runs, with_line_symbols
from gmonlens.profile.symbols import SymbolTable


def plain_runs(lines: LineTable, names: FunctionNames, lo: int, hi: int) -> list[tuple[int, str, int, str]]:
    points: set[int] = set()
    for addrs, _, _ in lines.sequences:
        points.update(a for a in addrs if lo <= a < hi)
    if names.scopes is not None:
        points.update(b for b in names.scopes.bounds if lo < b < hi)
    runs: list[tuple[int, str, int, str]] = []
    prev = None
    for a in sorted(points):
        hit = lines.lookup(a)
        if hit is None:
            prev = None
            continue
        key = (hit[0], hit[1], names.at(a))
        if key != prev:
            runs.append((a, *key))
        prev = key
    return runs


def random_table(rng: random.Random) -> LineTable:
    files = tuple(f"/src/f{i}.c" for i in range(4))
    seqs = []
    at = 0x1000
    for _ in range(rng.randrange(1, 8)):
        at += rng.choice([0, 0, 4, 0x40]) - (rng.randrange(0x30) if rng.random() < 0.2 else 0)  # overlaps
        n = rng.randrange(2, 40)
        addrs = sorted(at + rng.randrange(0, 0x200) for _ in range(n - 1))
        addrs = [at, *addrs]
        addrs.append(addrs[-1] + rng.randrange(1, 16))  # the end row
        fids = [rng.randrange(len(files)) for _ in addrs]
        lines = [rng.randrange(1, 6) for _ in addrs]
        seqs.append((array("Q", addrs), array("I", fids), array("q", lines)))
        at = addrs[-1]
    seqs.sort(key=lambda q: q[0][0])
    return LineTable(tuple(q[0][0] for q in seqs), tuple(seqs), files)


def random_scopes(rng: random.Random, lo: int, hi: int) -> FunctionScopes:
    bounds = sorted({rng.randrange(lo - 8, hi + 8) for _ in range(rng.randrange(2, 30))})
    names = tuple(rng.choice(["f", "g", "inl", None, ""]) for _ in bounds[1:])
    return FunctionScopes(tuple(bounds), names)


def elf(name: str, value: int, letter: str = "T") -> ElfSymbol:
    return ElfSymbol(name=name, name_offset=0, value=value, class_letter=letter, is_function=True)


@pytest.mark.parametrize("seed", range(300))
def test_runs_are_the_plain_rules(seed: int) -> None:
    rng = random.Random(seed)
    table = random_table(rng)
    lo, hi = table.starts[0] - 4, max(s[0][-1] for s in table.sequences) + 4
    symbols = [elf(f"sym{i}", rng.randrange(lo, hi)) for i in range(rng.randrange(0, 6))]
    for scopes in (None, random_scopes(rng, lo, hi)):
        names = FunctionNames(scopes, symbols)
        for a, b in ((lo, hi), (lo + 0x20, hi - 0x30), (rng.randrange(lo, hi), hi)):
            assert line_runs(table, names, a, b) == plain_runs(table, names, a, b)


@pytest.mark.parametrize("seed", range(100))
def test_line_symbols_are_routines_and_runs_in_address_order(seed: int) -> None:
    rng = random.Random(seed)
    table = random_table(rng)
    lo, hi = table.starts[0], max(s[0][-1] for s in table.sequences)
    scopes = random_scopes(rng, lo, hi)
    addrs = sorted({lo, *(rng.randrange(lo, hi) for _ in range(rng.randrange(0, 5)))})
    ends = [a - 1 for a in addrs[1:]] + [hi + 0x10]
    routines = tuple(
        Symbol(f"r{i}", a, e, True, bool(i % 2)) for i, (a, e) in enumerate(zip(addrs, ends, strict=True))
    )
    symtab = SymbolTable(routines, tuple(addrs))
    got = with_line_symbols(symtab, table, scopes, [elf("r0", lo)], hi + 0x100)
    runs = [
        r
        for r in plain_runs(table, FunctionNames(scopes, [elf("r0", lo)]), lo, hi + 0x11)
        if r[0] not in addrs
    ]
    merged = sorted(
        [
            (s.address, 0, s.name, s.is_function, s.is_static, *(table.lookup(s.address) or (None, 0)))
            for s in routines
        ]
        + [(a, 1, func, False, True, file, line) for a, file, line, func in runs]
    )
    starts = [m[0] for m in merged]
    expected = tuple(
        Symbol(name, a, end, fn, st, file, line, kind == 1)
        for (a, kind, name, fn, st, file, line), end in zip(
            merged, [*(x - 1 for x in starts[1:]), hi + 0x10], strict=True
        )
    )
    assert got.symbols == expected and got.addresses == tuple(starts)
