"""Another program's profile is refused everywhere (report, diff, export), with one line naming
both files and the evidence (gmonlens.profile.fit); profiles whose evidence is consistent with the binary
(its own, an older libc's histogram starting at .text) are accepted.

gprof prints a report of nonsense for every pair below and says nothing."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest
from gprof_harness import (
    AARCH64,
    GMONLENS,
    I686,
    NATIVE,
    Built,
    Result,
    Target,
    Workshop,
    compare_reports,
    gmonlens_env,
    run_tool,
)
from test_gprof_compare import CASES

from gmonlens.load.program import Program
from gmonwriter import Arc, Hist, gnu_file, read_gnu

NAMES = ("recursion", "cycles", "statics", "opt2", "calc")
PAIRS = [pytest.param(b, p, id=f"{b}-with-{p}") for b, p in itertools.permutations(NAMES, 2)]


def _built(workshop: Workshop, name: str, target: Target = NATIVE) -> Built:
    return workshop.get(CASES[name].program, target)


def _tool(cmd: str, binary: Path, own: Path, profile: Path, cwd: Path) -> Result:
    if cmd == "report":
        args = ["report", "-b", str(binary), str(profile)]
    elif cmd == "diff":
        args = ["diff", str(binary), str(own), str(profile)]
    else:
        args = ["export", "--format", "callgrind", str(binary), str(profile), "-o", str(cwd / "out.cg")]
    return run_tool([str(GMONLENS), *args], cwd, env=gmonlens_env())


def _refused(r: Result, binary: Path, profile: Path, evidence: str) -> str:
    assert "Traceback" not in r.err, r.err
    assert r.returncode == 1, f"accepted (exit {r.returncode}): {r.err}"
    lines = r.err.splitlines()
    assert len(lines) == 1, r.err
    assert str(binary) in lines[0] and str(profile) in lines[0], lines[0]
    assert evidence in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("binary, other", PAIRS)
def test_every_pair_is_refused_by_report(workshop: Workshop, binary: str, other: str, tmp_path: Path) -> None:
    b, o = _built(workshop, binary), _built(workshop, other)
    _refused(
        _tool("report", b.binary, b.gmon["out"], o.gmon["out"], tmp_path), b.binary, o.gmon["out"], "fit"
    )


@pytest.mark.parametrize("cmd", ["diff", "export"])
@pytest.mark.parametrize("binary", NAMES)
def test_pairs_are_refused_by_diff_and_export(
    workshop: Workshop, cmd: str, binary: str, tmp_path: Path
) -> None:
    other = NAMES[(NAMES.index(binary) + 1) % len(NAMES)]
    b, o = _built(workshop, binary), _built(workshop, other)
    r = _tool(cmd, b.binary, b.gmon["out"], o.gmon["out"], tmp_path)
    _refused(r, b.binary, o.gmon["out"], "fit")
    assert not (tmp_path / "out.cg").exists()


def _records(path: Path, target: Target = NATIVE) -> tuple[list[Hist], list[Arc]]:
    recs = read_gnu(path.read_bytes(), address_size=target.address_size, little_endian=target.little_endian)
    return [r for r in recs if isinstance(r, Hist)], [r for r in recs if isinstance(r, Arc)]


def _forged(own: Built, other: Built, dest: Path, target: Target = NATIVE) -> Path:
    """The binary's own histogram with the other program's arcs."""
    hists, _ = _records(own.gmon["out"], target)
    _, arcs = _records(other.gmon["out"], target)
    dest.write_bytes(
        gnu_file([*hists, *arcs], address_size=target.address_size, little_endian=target.little_endian)
    )
    return dest


@pytest.mark.parametrize("binary, other", PAIRS)
def test_foreign_arcs_under_a_fitting_histogram_are_refused(
    workshop: Workshop, binary: str, other: str, tmp_path: Path
) -> None:
    """The histogram alone cannot tell two programs of one size apart: the arcs can (callee
    addresses after a call to mcount, call sites after a call instruction)."""
    b, o = _built(workshop, binary), _built(workshop, other)
    p = _forged(b, o, tmp_path / "forged.out")
    _refused(_tool("report", b.binary, b.gmon["out"], p, tmp_path), b.binary, p, "arcs")


@pytest.mark.parametrize("target", [I686, AARCH64], ids=lambda t: t.name)
def test_foreign_arcs_are_refused_cross(workshop: Workshop, target: Target, tmp_path: Path) -> None:
    b, o = _built(workshop, "recursion", target), _built(workshop, "cycles", target)
    for binary, other in ((b, o), (o, b)):
        p = _forged(binary, other, tmp_path / f"forged-{binary.program.name}.out", target)
        _refused(_tool("report", binary.binary, binary.gmon["out"], p, tmp_path), binary.binary, p, "arcs")
        compare_reports(
            target, [str(binary.binary), str(binary.gmon["out"])], binary.dir
        )  # its own: accepted


@pytest.mark.parametrize("name", NAMES)
def test_histogram_ending_before_text_is_refused(workshop: Workshop, name: str, tmp_path: Path) -> None:
    """A run of this binary covers all of .text: a shorter histogram is an older, smaller build's."""
    b = _built(workshop, name)
    hists, arcs = _records(b.gmon["out"])
    h = hists[0]
    cut = len(h.counts) - 64
    scale = (h.high_pc - h.low_pc) / len(h.counts)
    short = Hist(h.low_pc, h.low_pc + int(cut * scale), h.counts[:cut], h.prof_rate)
    p = tmp_path / "short.out"
    p.write_bytes(gnu_file([short, *arcs]))
    _refused(_tool("report", b.binary, b.gmon["out"], p, tmp_path), b.binary, p, "before the end of .text")


@pytest.mark.parametrize("name", NAMES)
def test_older_libc_histogram_from_text_is_accepted(workshop: Workshop, name: str, tmp_path: Path) -> None:
    """Older libcs start the histogram at .text, not at the image's start: consistent, accepted
    with gprof's figures (a warning says early routines get no samples)."""
    b = _built(workshop, name)
    hists, arcs = _records(b.gmon["out"])
    h = hists[0]
    scale = (h.high_pc - h.low_pc) / len(h.counts)
    text = int(
        run_tool(["nm", str(b.binary)], tmp_path).stdout.decode().split(" T _start")[0].split()[-1], 16
    )
    skip = int((text - h.low_pc) / scale)
    late = Hist(h.low_pc + int(skip * scale), h.high_pc, h.counts[skip:], h.prof_rate)
    p = tmp_path / "late.out"
    p.write_bytes(gnu_file([late, *arcs]))
    r = _tool("report", b.binary, b.gmon["out"], p, tmp_path)
    assert r.returncode == 0, r.err
    compare_reports(NATIVE, [str(b.binary), str(p)], tmp_path)


def test_two_runs_summed_are_accepted(workshop: Workshop) -> None:
    b = workshop.get(CASES["recursion"].program, runs=CASES["recursion"].runs())
    compare_reports(NATIVE, [str(b.binary), str(b.gmon["out"]), str(b.gmon["r2"])], b.dir)


@pytest.mark.parametrize("binary, other", PAIRS[:6])
def test_foreign_arcs_are_refused_without_capstone(
    workshop: Workshop, binary: str, other: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The arcs are read against the code without a disassembler (callsites.may_return_at):
    where capstone cannot be imported, another program's arcs are still refused and the binary's
    own still fit exactly (before, without capstone, x86 arcs were not looked at)."""
    b, o = _built(workshop, binary), _built(workshop, other)
    p = _forged(b, o, tmp_path / "forged.out")
    monkeypatch.setitem(sys.modules, "capstone", None)  # `import capstone` raises ImportError
    fit = Program(str(b.binary), [str(p)]).fit()
    assert fit.errors and "arcs looked at do not match" in fit.errors[0], fit
    assert Program(str(b.binary), [str(b.gmon["out"])]).fit().exact
