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
from pathlib import Path

import pytest
from gprof_harness import NATIVE, Program, Result, assert_same_outcome, build, gmonlens, gprof, nm_symbols
from synth_gmon import Layout, make_gmon, objdump_sites, synth30_layout

from gmonwriter import Arc, Hist

# profiles synthesized from seeds: nothing here depends on a run's samples
pytestmark = pytest.mark.unsampled

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


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Layout]]:
    reason = NATIVE.missing()
    if reason:
        pytest.skip(reason)
    d = tmp_path_factory.mktemp("synth30")
    b = build(Program("synth30", ("synth30.c",)), NATIVE, d)
    yield b.binary, synth30_layout(nm_symbols(b.binary), sites=objdump_sites(b.binary))


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
    assert_same_outcome(expected, actual, path, f"seed {seed} {opt}")


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
