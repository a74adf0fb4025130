"""Line heat (gmonlens.profile.line_heat) against `gprof -b -l -p` on real `-pg` programs.

gprof's `-l` flat profile lists one entry per line symbol (a run of bytes with one file:line,
split also where the innermost inlined function changes) with its self seconds. At -O0 the runs are
the engine's line spans: every entry must match a span at its address, to the printed digit, and
no span with time may be missing. At -O2 gprof also splits runs where an inlined function starts,
so a span may hold several entries: their sum must match (to the printed rounding). Everywhere,
the spans of a routine add up to its self time.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from pathlib import Path

import pytest
from gprof_harness import AARCH64, I686, NATIVE, Built, Program, Target, Workshop, gprof

from binaries import dwarf_index, line_table
from gmonlens.common.model import Profile
from gmonlens.load.loader import load
from gmonlens.profile.line_heat import LineHeat, compute_line_heat, inlined_copies
from routine_keys import named

LINEHEAT = Program("lineheat", ("lineheat.c",), args=("20000000",))  # ~0.3 s: a few dozen samples
LINEHEAT_O2 = Program("lineheat_O2", ("lineheat.c",), flags=("-O2",), args=("6000000",))
PROGRAMS = {
    "lineheat": LINEHEAT,
    "lineheat_O2": LINEHEAT_O2,
    "recursion": Program("recursion", ("recursion.c",), args=("30000",)),
    "shapes": Program("shapes", ("shapes.cpp",), args=("5000",)),
    "opt2": Program("opt2", ("opt2.c",), flags=("-O2",), args=("600000",)),
}
O0 = ("lineheat", "recursion", "shapes")

# "%  cum  self  [calls self/call total/call]  name [(file:line @ addr)]"
ENTRY = re.compile(
    r"^\s*(\d+\.\d+)\s+\d+\.\d+\s+(\d+\.\d+)\s+(?:\d+\s+\S+\s+\S+\s+)?(.*?)(?: \((\S+):(\d+) @ ([0-9a-f]+)\))?$"
)


def gprof_lines(built: Built) -> list[tuple[str, str, str, int | None, int]]:
    """(percent, self seconds, name, address or None, line) of each `gprof -b -l -p` entry.
    (gprof's file name is not compared: at -O0 it prints the routine's unit file for lines of an
    included header, with the header's line numbers.)"""
    out = gprof(built.target, ["-b", "-l", "-p", str(built.binary), str(built.gmon["out"])], built.dir)
    assert out.returncode == 0, out.err
    rows = []
    text = out.stdout.decode().splitlines()
    start = next(i for i, line in enumerate(text) if line.startswith(" time "))  # after the header
    for line in text[start + 1 :]:
        m = ENTRY.match(line)
        assert m, line
        rows.append((m[1], m[2], m[3], int(m[6], 16) if m[6] else None, int(m[5] or 0)))
    return rows


def heat_of(built: Built) -> tuple[Profile, LineHeat]:
    loaded = load(str(built.binary), [str(built.gmon["out"])])
    table = line_table(str(built.binary))
    return loaded.profile, compute_line_heat(loaded.profile, loaded.gmon.histograms, table)


# (program, target): every program natively, the line-heat program also on i686 and AArch64
CASES: dict[str, tuple[str, Target]] = {name: (name, NATIVE) for name in PROGRAMS}
CASES |= {f"lineheat-{t.name}": ("lineheat", t) for t in (I686, AARCH64)}


@pytest.fixture(scope="module", params=list(CASES))
def case(request: pytest.FixtureRequest, workshop: Workshop) -> tuple[str, Built]:
    name, target = CASES[request.param]
    return name, workshop.get(PROGRAMS[name], target)


def test_spans_add_up_to_routine_self_time(case: tuple[str, Built]) -> None:
    _name, built = case
    profile, heat = heat_of(built)
    sums: dict[int, float] = {}
    for s in heat.spans:
        sums[s.routine] = sums.get(s.routine, 0.0) + s.ticks
    for r in profile.routines:
        assert sums.get(r.id, 0.0) == pytest.approx(r.self_ticks, rel=1e-12, abs=1e-12), r.name
    lines = sum(f.ticks for figs in heat.lines.values() for f in figs)
    no_line = sum(s.ticks for s in heat.spans if s.file is None)
    assert lines + no_line == pytest.approx(sum(r.self_ticks for r in profile.routines), rel=1e-12)


def test_spans_match_gprof_line_entries(case: tuple[str, Built]) -> None:
    name, built = case
    profile, heat = heat_of(built)
    rows = gprof_lines(built)
    by_name = named(profile.routines)  # for gprof's rows without a line (crt routines: own names)
    starts = sorted(s.address for s in heat.spans)
    got: dict[int, float] = {}  # gprof's seconds summed per span start
    count: dict[int, int] = {}
    spans = {s.address: s for s in heat.spans}
    for pct, self_s, fname, address, line in rows:
        if float(self_s) == 0.0 and pct == "0.00":
            continue
        if address is None:  # a routine without line information: one span at its start
            address = by_name[fname].address
        i = bisect_right(starts, address) - 1
        assert i >= 0, (fname, hex(address))
        span = spans[starts[i]]
        assert span.address <= address < span.end, (fname, hex(address))
        got[span.address] = got.get(span.address, 0.0) + float(self_s)
        count[span.address] = count.get(span.address, 0) + 1
        if name in O0:  # same runs: the same figures, as printed
            assert span.address == address, f"gprof has a line symbol at {address:x} inside a span"
            assert span.line == line, (fname, hex(address))
            assert f"{heat.seconds(span.ticks):.2f}" == self_s, (fname, hex(address))
            assert f"{heat.percent(span.ticks):.2f}" == pct, (fname, hex(address))
    for s in heat.spans:
        if heat.seconds(s.ticks) >= 0.005:  # gprof lists it with a non-zero figure
            assert s.address in got, f"span {s.address:x} ({s.file}:{s.line}) not in gprof -l"
            tolerance = 0.005 * count[s.address] + 1e-9
            assert abs(got[s.address] - heat.seconds(s.ticks)) <= tolerance, hex(s.address)


def test_inlined_header_line_gets_the_heat(workshop: Workshop) -> None:
    built = workshop.get(LINEHEAT_O2)
    profile, heat = heat_of(built)
    header = [f for path, figs in heat.lines.items() if Path(path).name == "lineheat.h" for f in figs]
    assert header, "no heat in lineheat.h"
    work = named(profile.routines)["work"]
    hottest = max(header, key=lambda f: f.ticks)
    assert hottest.routine == work.id  # mix was inlined into work
    assert hottest.line in (4, 5)
    from gmonlens.dwarf.scopes import function_scopes

    copies = inlined_copies(heat, profile, function_scopes(dwarf_index(str(built.binary))))
    assert "mix" in copies
    assert copies["mix"].callers[0][0] == work.id
    in_header = sum(f.ticks for f in header)
    assert copies["mix"].ticks == pytest.approx(in_header, rel=0.05)
