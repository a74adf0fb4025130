"""Property tests: random synthetic GNU gmon files against one fixed compiled binary
(programs/synth30.c, 30 routines), `gprof -b` vs `gmonlens report -b` byte for byte (and `-z`).

The cases come from a seeded generator (reproducible by seed: the test id names it): random
histograms (glibc-like non-integer scales, exact scale 2.0, arbitrary scales, two records),
60/100/1000 Hz, arcs between the routines (self arcs, duplicate records, big cycles, count 0),
sometimes no histogram or no arcs; every 4th case also with a filtering option (-E/-F/-e/-f/-k/
-a/-q/-p/-P/-Q). Both tools run on the same file; runs go two at a time."""

from __future__ import annotations

import random
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from gprof_harness import NATIVE, Program, Result, build, gmonlens, gprof, nm_symbols, unified_diff

from gmonwriter import Arc, Hist, gnu_file

N_CASES = 120
SEEDS = range(1, N_CASES + 1)
Z_EVERY = 2  # -z on every other case
SPEC_EVERY = 4  # a symspec/option variant on every 4th case (chosen by seed)


def spec_variant(seed: int) -> tuple[str, tuple[str, ...]]:
    """A filtering option for this seed: these stress print flags and fract on random graphs."""
    rng = random.Random(seed * 7919)
    f, g = (f"f{rng.randrange(30):02d}" for _ in range(2))
    choices = [
        ("E", ("-E", f)),
        ("F", ("-F", f)),
        ("e", ("-e", f)),
        ("f", ("-f", f)),
        ("k", ("-k", f"{f}/{g}")),
        ("a", ("-a",)),
        ("q", ("-q",)),
        ("p", ("-p",)),
        ("P", (f"-P{f}",)),
        ("Q", (f"-Q{f}",)),
        ("EF", ("-E", f, "-F", g)),
        ("zq", ("-z", f"-q{f}")),
    ]
    return choices[(seed // SPEC_EVERY) % len(choices)]


@dataclass(frozen=True)
class Layout:
    routines: list[tuple[str, int, int]]  # (name, start, end exclusive) of f00..f29 and main
    text_end: int  # roundup(etext, 4): glibc's high_pc


def make_gmon(seed: int, lay: Layout) -> bytes:
    rng = random.Random(seed)
    records: list[Hist | Arc] = []
    rate = rng.choice([60, 100, 100, 1000])
    shape = rng.choice(["glibc", "glibc", "exact", "random", "random", "split", "none"])
    low, high = 0, lay.text_end
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
        main = next(r for r in routines if r[0] == "main")
        for _ in range(rng.randint(0, 3)):
            arcs.append(arc(main, rng.choice(routines), rng.randint(1, 50)))
        rng.shuffle(arcs)
    return gnu_file([*records, *arcs])


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Layout]]:
    reason = NATIVE.missing()
    if reason:
        pytest.skip(reason)
    d = tmp_path_factory.mktemp("synth30")
    b = build(Program("synth30", ("synth30.c",)), NATIVE, d)
    syms = nm_symbols(b.binary)
    names = [f"f{i:02d}" for i in range(30)] + ["main"]
    starts = sorted(syms[n] for n in names)
    after = sorted(v for v in syms.values() if v > starts[-1])
    bounds = [*starts[1:], after[0]]
    by_addr = {syms[n]: n for n in names}
    routines = [(by_addr[s], s, e) for s, e in zip(starts, bounds, strict=True)]
    etext = syms["etext"]
    yield b.binary, Layout(routines, -(-etext // 4) * 4)


@pytest.fixture(scope="module")
def outcomes(synth: tuple[Path, Layout]) -> dict[tuple[int, str], tuple[Result, Result, Path]]:
    binary, lay = synth
    jobs: list[tuple[int, str, tuple[str, ...], Path]] = []
    for seed in SEEDS:
        p = binary.parent / f"case{seed:03d}.gmon"
        p.write_bytes(make_gmon(seed, lay))
        jobs.append((seed, "default", (), p))
        if seed % Z_EVERY == 0:
            jobs.append((seed, "z", ("-z",), p))
        if seed % SPEC_EVERY == 0:
            jobs.append((seed, *spec_variant(seed), p))

    def run(
        job: tuple[int, str, tuple[str, ...], Path],
    ) -> tuple[tuple[int, str], tuple[Result, Result, Path]]:
        seed, oid, args, p = job
        argv = ["-b", *args, str(binary), str(p)]
        return (seed, oid), (gprof(NATIVE, argv, binary.parent), gmonlens(argv, binary.parent), p)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(run, jobs))


PARAMS = [
    *(pytest.param(s, "default", id=f"seed{s}") for s in SEEDS),
    *(pytest.param(s, "z", id=f"seed{s}-z") for s in SEEDS if s % Z_EVERY == 0),
    *(
        pytest.param(s, spec_variant(s)[0], id=f"seed{s}-{spec_variant(s)[0]}")
        for s in SEEDS
        if s % SPEC_EVERY == 0
    ),
]


@pytest.mark.parametrize(("seed", "opt"), PARAMS)
def test_random_profile_matches_gprof(
    outcomes: dict[tuple[int, str], tuple[Result, Result, Path]], seed: int, opt: str
) -> None:
    expected, actual, path = outcomes[(seed, opt)]
    assert "Traceback" not in actual.err, actual.err
    if expected.returncode != 0:
        assert actual.returncode != 0, f"gprof failed ({expected.err.strip()}), gmonlens did not"
        return
    assert actual.returncode == 0, f"gmonlens failed on {path}: {actual.err}"
    if expected.stdout != actual.stdout:
        diff = unified_diff(expected.stdout, actual.stdout, "gprof -b", "gmonlens report -b")
        pytest.fail(f"seed {seed} ({path}) {opt}:\n{diff}", pytrace=False)


def test_generator_covers_the_cases(synth: tuple[Path, Layout]) -> None:
    """The generator really produces self arcs, duplicates, several rates and non-integer scales."""
    _, lay = synth
    from gmonwriter import read_gnu

    rates, scales, selfs, dups = set(), set(), 0, 0
    for seed in SEEDS:
        recs = read_gnu(make_gmon(seed, lay))
        arcs = [(r.from_pc, r.self_pc) for r in recs if isinstance(r, Arc)]
        dups += len(arcs) - len(set(arcs))
        starts = {s for _, s, _ in lay.routines}
        selfs += sum(
            1
            for f, s in arcs
            if max(a for a in starts if a <= f) == max((a for a in starts if a <= s), default=-1)
        )
        for r in recs:
            if isinstance(r, Hist):
                rates.add(r.prof_rate)
                scales.add(((r.high_pc - r.low_pc) // 2) / len(r.counts))
    assert rates == {60, 100, 1000}
    assert any(s != int(s) for s in scales) and 2.0 in scales
    assert selfs > 20 and dups > 20
