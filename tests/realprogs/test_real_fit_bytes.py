"""The fit rule reads a profile's arcs against the code without a disassembler (issue 21 item 7:
`report -l` within 2x of gprof's time and memory; capstone's import alone cost 15 MB): on the tier's
real programs the byte check (`CallFinder.may_return_at`) sees every call capstone decodes, the
rule's counts are the decoder's for every program's own and every other program's arcs, and a
report loads no decoder."""

from __future__ import annotations

import itertools
import subprocess
import sys
from bisect import bisect_left, bisect_right
from pathlib import Path

import pytest

from gmonlens.load.program import Program
from gmonlens.profile.call_sites import CallFinder
from gmonlens.profile.fit import ARC_CODE_SAMPLE, CALL_SITE_REACH, PROLOGUE, arc_code_mismatches

from . import programs
from .zerocheck import Oracle

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "integration"))
from gprof_harness import GMONLENS, gmonlens_env

FIXTURES = ("sqlite_prog", "qjs_prog", "leveldb_prog", "libsass_prog", "jq_prog")
# prints whether capstone was imported, after the report (stdout) is written
PROBE = (
    "import sys\nfrom gmonlens_cli.main import main\ntry:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
    "sys.stdout.flush()\nprint('capstone' in sys.modules, file=sys.stderr)\n"
)


def _prog(request: pytest.FixtureRequest, name: str) -> programs.RealProgram:
    pair: tuple[programs.RealProgram, Oracle] = request.getfixturevalue(name)
    return pair[0]


@pytest.mark.parametrize("args", [("-b", "-l"), ("-b",)], ids=["lines", "default"])
def test_a_report_loads_no_decoder(jq_prog: tuple[programs.RealProgram, Oracle], args: tuple[str, ...],
                                   tmp_path: Path) -> None:  # fmt: skip
    prog = jq_prog[0]
    argv = [*args, str(prog.binary), str(prog.gmon)]
    python = GMONLENS.parent / "python"
    env = gmonlens_env()
    for _ in range(2):  # cold cache, then warm
        r = subprocess.run([str(python), "-c", PROBE, "report", *argv], capture_output=True, env=env,
                           cwd=tmp_path, timeout=300, check=False)  # fmt: skip
        assert r.stderr.decode().splitlines() == ["False"], r.stderr.decode()
        expected = subprocess.run(["gprof", *argv], capture_output=True, check=True, timeout=300).stdout
        assert r.stdout == expected


def _decoded_calls(finder: CallFinder, entries: list[int], code_end: int) -> list[tuple[int, int]]:
    """(routine entry, return address) of every call capstone decodes from each routine's entry."""
    out = []
    for lo, hi in zip(entries, [*entries[1:], code_end], strict=True):
        out += [(lo, r) for r in finder.call_returns(lo, hi)]
    return out


@pytest.mark.parametrize("name", FIXTURES)
def test_byte_check_sees_every_decoded_call(name: str, request: pytest.FixtureRequest) -> None:
    image = Program(str(_prog(request, name).binary)).image
    finder = CallFinder(image.machine, image.address_size, [(c.address, c.data) for c in image.code_sections])
    entries = sorted({s.value for s in image.symbols if s.class_letter in "Tt" and s.value})
    code_end = max(c.address + len(c.data) for c in image.code_sections)
    calls = _decoded_calls(finder, entries, code_end)
    assert len(calls) > 1000
    missed = [hex(r) for lo, r in calls if not finder.may_return_at(r, lo)]
    assert not missed, f"{len(missed)} of {len(calls)} calls not seen: {missed[:10]}"


def _decoder_count(prog: Program, arcs: list, entries: list[int]) -> tuple[int, int]:  # type: ignore[type-arg]
    """The rule's count with every sampled arc decoded (what fit.py counted before the byte check)."""
    image, symtab = prog.image, prog.symtab
    finder = CallFinder(image.machine, image.address_size, [(c.address, c.data) for c in image.code_sections])
    looked = bad = 0
    for a in arcs[:: max(1, len(arcs) // ARC_CODE_SAMPLE)]:
        if symtab.lookup(a.from_pc) < 0 or symtab.lookup(a.self_pc) < 0:
            continue
        looked += 1
        entry = entries[bisect_right(entries, a.self_pc) - 1]
        if a.self_pc == entry:
            continue
        if a.self_pc - entry > PROLOGUE or a.self_pc not in finder.call_returns(entry, entry + PROLOGUE):
            bad += 1
            continue
        start = max(entries[bisect_right(entries, a.from_pc) - 1], a.from_pc - CALL_SITE_REACH)
        i = bisect_right(entries, a.from_pc)
        end = min(
            entries[i] if i < len(entries) else a.from_pc + CALL_SITE_REACH, start + 2 * CALL_SITE_REACH
        )
        rets = finder.call_returns(start, max(end, a.from_pc + finder.granule))
        k = bisect_left(rets, a.from_pc)
        bad += k == len(rets) or rets[k] >= a.from_pc + finder.granule
    return bad, looked


@pytest.mark.parametrize(
    ("binary", "other"), [*((f, f) for f in FIXTURES), *itertools.permutations(FIXTURES, 2)]
)
def test_rule_counts_are_the_decoders(binary: str, other: str, request: pytest.FixtureRequest) -> None:
    """Own arcs (all match, nothing decoded) and every other program's arcs (counted by the decoder
    wherever the byte check cannot refute them) under each binary."""
    prog = Program(str(_prog(request, binary).binary), [str(_prog(request, other).gmon)])
    arcs = list(Program(str(_prog(request, other).binary), [str(_prog(request, other).gmon)]).gmon().arcs)
    image = prog.image
    entries = sorted(
        {s.value for s in image.symbols if (s.is_function or s.class_letter in "TtW") and s.value}
    )
    got = arc_code_mismatches(image, prog.symtab, arcs)
    assert got == _decoder_count(prog, arcs, entries)
    if binary == other:
        assert got[0] == 0 and got[1] > 0
