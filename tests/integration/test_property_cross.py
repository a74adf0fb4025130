"""Property tests on the other targets: programs/synth30.c built (not run) for i686 and AArch64,
random synthetic GNU gmon files (4-byte addresses for i686) from synth_gmon, and the target's
gprof as the oracle (`gprof` reads elf32-i386; `aarch64-linux-gnu-gprof`)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from gprof_harness import (
    AARCH64,
    I686,
    Program,
    Result,
    Target,
    assert_same_outcome,
    build,
    gmonlens,
    gprof,
    nm_symbols,
)
from synth_gmon import Layout, make_gmon, objdump_sites, synth30_layout

# profiles synthesized from seeds: nothing here depends on a run's samples
pytestmark = pytest.mark.unsampled

TARGETS = {"i686": I686, "aarch64": AARCH64}
SEEDS = range(2001, 2041)
NM = {"i686": "nm", "aarch64": "aarch64-linux-gnu-nm"}
OBJDUMP = {"i686": "objdump", "aarch64": "aarch64-linux-gnu-objdump"}


def _layout(binary: Path, target: Target, name: str) -> Layout:
    sites = objdump_sites(binary, OBJDUMP[name])
    return synth30_layout(nm_symbols(binary, NM[name]), target.address_size, target.little_endian, sites)


@pytest.fixture(scope="module")
def outcomes(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[tuple[str, str], tuple[Result, Result, Path]]]:
    jobs: list[tuple[str, str, tuple[str, ...], Path, Path]] = []
    for name, target in TARGETS.items():
        if target.missing():
            continue
        d = tmp_path_factory.mktemp(f"synth30-{name}")
        b = build(Program("synth30", ("synth30.c",)), target, d)
        lay = _layout(b.binary, target, name)
        for seed in SEEDS:
            p = d / f"case{seed}.gmon"
            p.write_bytes(make_gmon(seed, lay))
            jobs.append((name, f"seed{seed}", (), b.binary, p))
            if seed % 2:
                jobs.append((name, f"seed{seed}-z", ("-z",), b.binary, p))

    def run(
        job: tuple[str, str, tuple[str, ...], Path, Path],
    ) -> tuple[tuple[str, str], tuple[Result, Result, Path]]:
        name, cid, args, binary, p = job
        argv = ["-b", *args, str(binary), str(p)]
        return (name, cid), (gprof(TARGETS[name], argv, p.parent), gmonlens(argv, p.parent), p)

    with ThreadPoolExecutor(max_workers=2) as pool:
        yield dict(pool.map(run, jobs))


PARAMS = [
    pytest.param(name, cid, id=f"{name}-{cid}")
    for name in TARGETS
    for seed in SEEDS
    for cid in ([f"seed{seed}", f"seed{seed}-z"] if seed % 2 else [f"seed{seed}"])
]


@pytest.mark.parametrize(("target", "cid"), PARAMS)
def test_cross_random_profile_matches_gprof(
    outcomes: dict[tuple[str, str], tuple[Result, Result, Path]], target: str, cid: str
) -> None:
    reason = TARGETS[target].missing()
    if reason:
        pytest.skip(reason)
    expected, actual, path = outcomes[(target, cid)]
    assert_same_outcome(expected, actual, path, f"{target} {cid}")
