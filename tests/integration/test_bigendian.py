"""Big-endian profiles: a 32-bit PowerPC program (programs/bigendian_ppc.s, assembled and linked
with binutils-powerpc-linux-gnu; never run) and random synthetic big-endian gmon files, GNU and
BSD formats, compared with `powerpc-linux-gnu-gprof -b` byte for byte."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile
from gprof_harness import PROGRAMS_DIR, Result, Target, assert_same_outcome, gmonlens, gprof, nm_symbols
from synth_gmon import Layout, make_gmon

from gmonwriter import gnu_to_bsd

# profiles synthesized from the symbol table: nothing here depends on a run's samples
pytestmark = pytest.mark.unsampled

PPC = Target("ppc32be", gprof="powerpc-linux-gnu-gprof", address_size=4, little_endian=False)
TOOLS = ("powerpc-linux-gnu-as", "powerpc-linux-gnu-ld", "powerpc-linux-gnu-nm", PPC.gprof)
SEEDS = range(1001, 1041)


@pytest.fixture(scope="module")
def ppc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Layout]]:
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (Debian: binutils-powerpc-linux-gnu)")
    d = tmp_path_factory.mktemp("ppc")
    obj, binary = d / "prog.o", d / "prog"
    subprocess.run([TOOLS[0], "-o", str(obj), str(PROGRAMS_DIR / "bigendian_ppc.s")], check=True)
    subprocess.run([TOOLS[1], "-o", str(binary), str(obj)], check=True)
    syms = nm_symbols(binary, TOOLS[2])
    names = ["_start", *(f"g{i:02d}" for i in range(20))]
    starts = sorted(syms[n] for n in names)
    with binary.open("rb") as f:
        text = ELFFile(f).get_section_by_name(".text")
        text_end = text["sh_addr"] + text["sh_size"]
    bounds = [*starts[1:], text_end]
    by_addr = {syms[n]: n for n in names}
    routines = [(by_addr[s], s, e) for s, e in zip(starts, bounds, strict=True)]
    lay = Layout(routines, -(-text_end // 4) * 4, text["sh_addr"] & ~3, "_start", 4, False)
    yield binary, lay


def _cases(binary: Path, lay: Layout) -> list[tuple[str, tuple[str, ...], Path]]:
    cases = []
    for seed in SEEDS:
        p = binary.parent / f"be{seed}.gmon"
        data = make_gmon(seed, lay)
        p.write_bytes(data)
        cases.append((f"seed{seed}", (), p))
        if seed % 2 == 0:
            cases.append((f"seed{seed}-z", ("-z",), p))
        if seed % 5 == 0:
            cases.append((f"seed{seed}-c", ("-c",), p))  # no ppc scanner: gprof warns, same report
        if seed % 3 == 0:
            for bsd44 in (False, True):
                try:
                    bsd = gnu_to_bsd(data, bsd44=bsd44, address_size=4, little_endian=False)
                except ValueError:  # no histogram, or two: not expressible as a BSD file
                    continue
                q = p.with_suffix(".bsd44" if bsd44 else ".oldbsd")
                q.write_bytes(bsd)
                cases.append((f"seed{seed}-{q.suffix[1:]}", (), q))
    return cases


@pytest.fixture(scope="module")
def outcomes(ppc: tuple[Path, Layout]) -> dict[str, tuple[Result, Result, Path]]:
    binary, lay = ppc

    def run(case: tuple[str, tuple[str, ...], Path]) -> tuple[str, tuple[Result, Result, Path]]:
        cid, args, p = case
        argv = ["-b", *args, str(binary), str(p)]
        return cid, (gprof(PPC, argv, binary.parent), gmonlens(argv, binary.parent), p)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(run, _cases(binary, lay)))


def _ids() -> list[str]:
    ids = []
    for seed in SEEDS:
        ids.append(f"seed{seed}")
        if seed % 2 == 0:
            ids.append(f"seed{seed}-z")
        if seed % 5 == 0:
            ids.append(f"seed{seed}-c")
        if seed % 3 == 0:
            ids += [f"seed{seed}-oldbsd", f"seed{seed}-bsd44"]
    return ids


@pytest.mark.parametrize("cid", _ids())
def test_big_endian_matches_gprof(outcomes: dict[str, tuple[Result, Result, Path]], cid: str) -> None:
    if cid not in outcomes:
        pytest.skip("this seed's profile has no single histogram: no BSD form")
    expected, actual, path = outcomes[cid]
    assert_same_outcome(expected, actual, path, cid)


def test_symbol_kinds_present(ppc: tuple[Path, Layout]) -> None:
    """The program has what it claims: local, weak, alias and NOTYPE symbols (nm letters)."""
    binary, _ = ppc
    out = subprocess.run([TOOLS[2], str(binary)], capture_output=True, text=True, check=True).stdout
    kinds = {line.split()[2]: line.split()[1] for line in out.splitlines()}
    assert kinds["g02"] == "t" and kinds["g08"] == "W" and kinds["g11_alias"] == "T"
    assert kinds["g15_label"] == "T"
