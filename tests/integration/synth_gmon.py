"""Random synthetic GNU gmon files for one fixed binary (the property tests' generator).

Random histograms (glibc-like non-integer scales, exact scale 2.0, arbitrary scales, two records of
one scale), 60/100/1000 Hz, arcs between the given routines (self arcs, duplicate records, big
cycles, count 0), sometimes no histogram or no arcs. Reproducible from the seed."""

from __future__ import annotations

import random
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gmonwriter import Arc, Hist, gnu_file


@dataclass(frozen=True)
class Layout:
    """What the generator needs to know about the fixed binary."""

    routines: list[tuple[str, int, int]]  # (name, start, end exclusive) of the routines arcs use
    text_end: int  # roundup(etext, 4): glibc's high_pc
    text_start: int = 0  # glibc's low_pc: 0 for a PIE (the executable's start), else its start
    root: str = "main"  # a routine that gets a few extra outgoing arcs
    address_size: int = 8
    little_endian: bool = True
    # per routine name: (return addresses of its call to mcount, of its other calls), as objdump
    # decodes them; with them arcs are what glibc records (self_pc after the callee's mcount call,
    # from_pc a call's return address rounded down to 2 * address_size), else anywhere in a routine
    sites: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=dict)


_INSN = re.compile(r"^\s*([0-9a-f]+):\t(\S+)\s*(.*)$")
_FUNC = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")


def objdump_sites(
    binary: Path, objdump: str = "objdump"
) -> dict[str, tuple[tuple[int, ...], tuple[int, ...]]]:
    """Layout.sites from `objdump -d`: each function's mcount-call and other call return addresses."""
    out = subprocess.run(
        [objdump, "-d", "--no-show-raw-insn", str(binary)], capture_output=True, text=True, check=True
    ).stdout
    sites: dict[str, tuple[list[int], list[int]]] = {}
    # pending: whether the previous instruction was the call to mcount (the function's first call
    # but for i386 PIC code's pc thunk; `call *-0x10(%ebx)` there names no symbol), None: no call
    name, pending, seen = "", None, False
    for line in out.splitlines():
        f = _FUNC.match(line)
        if f:
            name, pending, seen = f.group(1), None, False
            sites.setdefault(name, ([], []))
            continue
        m = _INSN.match(line)
        if not m or not name:
            continue
        if pending is not None:
            sites[name][0 if pending else 1].append(int(m.group(1), 16))
        pending = None
        if m.group(2).startswith("call") or m.group(2) in ("bl", "blr"):
            pending = not seen and "get_pc_thunk" not in m.group(3)
            seen = seen or pending
    return {k: (tuple(a), tuple(b)) for k, (a, b) in sites.items()}


def make_gmon(seed: int, lay: Layout) -> bytes:
    """A random GNU gmon file for `lay`, reproducible from `seed`."""
    rng = random.Random(seed)
    records: list[Hist | Arc] = []
    rate = rng.choice([60, 100, 100, 1000])
    shape = rng.choice(["glibc", "glibc", "exact", "random", "random", "split", "none"])
    low, high = lay.text_start, lay.text_end
    if rng.random() < 0.2:
        low = lay.routines[0][1] & ~0xF  # start at the first user routine
    span = high - low

    def hist(lo: int, hi: int, nbins: int) -> Hist:
        counts = [0] * nbins
        for _ in range(rng.randint(0, 40)):
            c = rng.randint(1, 5) if rng.random() < 0.8 else rng.randint(6, 3000)
            counts[rng.randrange(nbins)] += c
        return Hist(lo, hi, counts, prof_rate=rate)

    if shape == "glibc":
        records.append(hist(low, high, -(-(span // 2) // 8) * 8 // 2))
    elif shape == "exact":
        span -= span % 4
        records.append(hist(low, low + span, span // 4))
    elif shape == "random":
        records.append(hist(low, high, rng.randint(max(1, span // 40), span // 2)))
    elif shape == "split":
        gap = rng.choice([0, 8, 64])  # two records of one scale, the second ending at high
        gap += (span - gap) % 2
        half = (span - gap) // 2
        nb = half // rng.choice([2, 4, 6])
        records.append(hist(low, low + half, nb))
        records.append(hist(low + half + gap, low + 2 * half + gap, nb))
    arcs: list[Arc] = []
    routines = lay.routines

    def arc(p: tuple[str, int, int], c: tuple[str, int, int], count: int) -> Arc:
        if lay.sites:
            mcount, calls = lay.sites[p[0]]
            frm = rng.choice(calls or mcount) & -(2 * lay.address_size)
            return Arc(frm, rng.choice(lay.sites[c[0]][0]), count)
        frm = p[1] + rng.randrange(max(1, p[2] - p[1]))
        slf = c[1] + rng.randrange(min(24, max(1, c[2] - c[1])))
        return Arc(frm, slf, count)

    def count() -> int:
        r = rng.random()
        return 0 if r < 0.03 else rng.randint(1, 10) if r < 0.7 else rng.randint(11, 100_000)

    if shape == "none" or rng.random() < 0.93:
        for _ in range(rng.randint(0, 80)):
            kind = rng.random()
            if kind < 0.1:
                r = rng.choice(routines)
                arcs.append(arc(r, r, count()))  # self arc
            elif kind < 0.2 and arcs:
                a = rng.choice(arcs)  # duplicate record (same ends; same or another call site)
                arcs.append(a if rng.random() < 0.5 else Arc(a.from_pc, a.self_pc, count()))
            else:
                arcs.append(arc(rng.choice(routines), rng.choice(routines), count()))
        for _ in range(rng.choice([0, 0, 1, 2])):
            members = rng.sample(routines, rng.randint(3, 15))  # a big cycle
            for p, c in zip(members, members[1:] + members[:1], strict=True):
                arcs.append(arc(p, c, count() or 1))
        main = next(r for r in routines if r[0] == lay.root)
        for _ in range(rng.randint(0, 3)):
            arcs.append(arc(main, rng.choice(routines), rng.randint(1, 50)))
        rng.shuffle(arcs)
    return gnu_file([*records, *arcs], address_size=lay.address_size, little_endian=lay.little_endian)


def synth30_layout(
    syms: Mapping[str, int],
    address_size: int = 8,
    little_endian: bool = True,
    sites: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] | None = None,
) -> Layout:
    """The Layout of programs/synth30.c from its symbol values (`nm`): routines f00..f29 and main,
    each ending where the next symbol above it starts; text_end = roundup(etext, 4)."""
    names = [f"f{i:02d}" for i in range(30)] + ["main"]
    starts = sorted(syms[n] for n in names)
    after = sorted(v for v in syms.values() if v > starts[-1])
    bounds = [*starts[1:], after[0]]
    by_addr = {syms[n]: n for n in names}
    routines = [(by_addr[s], s, e) for s, e in zip(starts, bounds, strict=True)]
    end = -(-syms["etext"] // 4) * 4
    return Layout(routines, end, 0, "main", address_size, little_endian, sites or {})
