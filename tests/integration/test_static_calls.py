"""`-c` (static call graph) on real programs for x86-64, i386 and AArch64.

* AArch64: `gmonlens report -b -c` equals `aarch64-linux-gnu-gprof -b -c` byte for byte.
* x86 (gprof scans bytes and zero-extends the displacement, so it misses backward calls):
  - the static arcs we find are exactly the direct calls in the source (by name, in scan order);
  - our `-c` report equals what gprof prints *without* `-c` for the same profile with our static
    arcs appended as count-0 arc records (gprof tallies a count-0 record as a count-0 arc, created
    after the real ones: the same lists, DFS and numbering as `-c` arcs);
  - against `gprof -b -c` itself, the differences are pinned line by line.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Sequence
from pathlib import Path

import pytest
from gprof_harness import (
    AARCH64,
    I686,
    NATIVE,
    Built,
    Program,
    Target,
    Workshop,
    compare_reports,
    gmonlens,
    gprof,
)

from binaries import read_image

pytestmark = pytest.mark.integration

SRC = Path(__file__).resolve().parent / "static_programs"
CALLS = Program("static_calls", ("static_calls.c",), src_dir=SRC, args=("20000000",))
PIN = Program("static_pin", ("static_pin.c",), src_dir=SRC, args=("20000000",))
TAIL = Program("static_tail", ("static_tail.c",), flags=("-O2",), src_dir=SRC, args=("20000000",))

USER = {"burn", "helper", "a1", "b1", "b2", "a2", "rec", "never", "viaptr", "after", "main"}
# Every direct call in static_calls.c, caller by address, call sites ascending (the truth)
CALLS_PAIRS = [
    ("helper", "burn"),
    ("a1", "burn"),
    ("a1", "b1"),
    ("b1", "burn"),
    ("b1", "a1"),
    ("b2", "burn"),
    ("b2", "a2"),
    ("a2", "burn"),
    ("a2", "b2"),
    ("rec", "rec"),
    ("rec", "burn"),
    ("never", "helper"),
    ("never", "after"),
    ("viaptr", "burn"),
    ("after", "burn"),
    ("main", "helper"),
    ("main", "a1"),
    ("main", "a2"),
    ("main", "rec"),
    ("main", "after"),
    ("main", "never"),
]


def static_pairs(binary: Path) -> tuple[list[tuple[str, str]], list[tuple[int, int]], list[int], int]:
    """Our scanner on `binary`: (caller, callee) names, position pairs, routine starts, pointer size."""
    from gmonlens.profile.static_calls import find_static_calls
    from gmonlens.profile.symbols import build_symbol_table

    image = read_image(str(binary))
    table = build_symbol_table(image.symbols, image.strtab, image.text_end)
    starts = [s.address for s in table.symbols]
    ends = [s.end_address for s in table.symbols]
    pairs = find_static_calls(image.machine, image.code_sections, starts, ends)
    names = [s.name for s in table.symbols]
    return [(names[p], names[c]) for p, c in pairs], pairs, starts, image.address_size


def with_zero_arcs(
    gmon: Path, out: Path, pairs: Sequence[tuple[int, int]], starts: Sequence[int], size: int
) -> Path:
    """`gmon` plus one count-0 arc record (caller entry -> callee entry) per pair, in order."""
    ptr = "<QQI" if size == 8 else "<III"
    extra = b"".join(b"\x01" + struct.pack(ptr, starts[p], starts[c], 0) for p, c in pairs)
    out.write_bytes(gmon.read_bytes() + extra)
    return out


def get(workshop: Workshop, program: Program, target: Target) -> Built:
    return workshop.get(program, target)


# --- AArch64: byte for byte ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "args", [("-c",), ("-c", "-z"), ("-c", "-k", "main/after"), ("-c", "-a")], ids=["c", "c-z", "c-k", "c-a"]
)
@pytest.mark.parametrize("program", [CALLS, PIN, TAIL], ids=lambda p: p.name)
def test_aarch64_equals_gprof(workshop: Workshop, program: Program, args: tuple[str, ...]) -> None:
    b = get(workshop, program, AARCH64)
    compare_reports(AARCH64, [*args, str(b.binary), str(b.gmon["out"])], b.dir)


def test_aarch64_pairs(workshop: Workshop) -> None:
    b = get(workshop, CALLS, AARCH64)
    names, *_ = static_pairs(b.binary)
    assert [p for p in names if p[0] in USER] == CALLS_PAIRS


def test_aarch64_tail_calls_are_arcs(workshop: Workshop) -> None:
    b = get(workshop, TAIL, AARCH64)
    names, *_ = static_pairs(b.binary)
    assert ("tail", "leaf") in names  # `b leaf`, as gprof counts it
    out = gmonlens(["-b", "-c", str(b.binary), str(b.gmon["out"])], b.dir).stdout.decode()
    assert "0/1           cold [" in out  # cold never runs; its calls are static arcs


# --- x86-64 and i386 ------------------------------------------------------------------------------

X86 = [pytest.param(NATIVE, id="x86-64"), pytest.param(I686, id="i386")]


@pytest.mark.parametrize("target", X86)
def test_x86_pairs_are_the_direct_calls(workshop: Workshop, target: Target) -> None:
    b = get(workshop, CALLS, target)
    names, *_ = static_pairs(b.binary)
    # no PLT calls (printf, atoi, mcount), no call through fp, backward calls and the self call found
    assert [p for p in names if p[0] in USER and p[1] in USER] == CALLS_PAIRS
    assert all(
        callee in USER or callee.startswith("__x86.get_pc_thunk")
        for caller, callee in names
        if caller in USER
    )


@pytest.mark.parametrize("args", [("-c",), ("-c", "-z")], ids=["c", "c-z"])
@pytest.mark.parametrize("program", [CALLS, PIN, TAIL], ids=lambda p: p.name)
@pytest.mark.parametrize("target", X86)
def test_x86_report_equals_gprof_given_the_same_arcs(
    workshop: Workshop, target: Target, program: Program, args: tuple[str, ...]
) -> None:
    b = get(workshop, program, target)
    _, pairs, starts, size = static_pairs(b.binary)
    zero = with_zero_arcs(b.gmon["out"], b.dir / "gmon.zero-arcs", pairs, starts, size)
    expected = gprof(target, ["-b", *(a for a in args if a != "-c"), str(b.binary), str(zero)], b.dir)
    actual = gmonlens(["-b", *args, str(b.binary), str(b.gmon["out"])], b.dir)
    assert expected.returncode == 0 and actual.returncode == 0, (expected.err, actual.err)
    assert actual.stdout.decode() == expected.stdout.decode()


def _index_of(report: str, name: str) -> int:
    found = re.search(rf" {re.escape(name)} \[(\d+)\]", report)
    assert found, f"{name} not in the report"
    return int(found.group(1))


def _added_lines(expected: str, actual: str) -> list[str]:
    import difflib

    diff = difflib.ndiff(expected.splitlines(), actual.splitlines())
    removed = [d for d in diff if d.startswith("- ")]
    assert not removed, removed
    return [d[2:] for d in difflib.ndiff(expected.splitlines(), actual.splitlines()) if d.startswith("+ ")]


def test_x86_64_differences_from_gprof_are_pinned(workshop: Workshop) -> None:
    """gprof -c on x86-64 finds never -> after (forward) but not never -> before or main -> never
    (backward); we find all three. Without cycles the reports differ by exactly these lines."""
    b = get(workshop, PIN, NATIVE)
    argv = ["-b", "-c", str(b.binary), str(b.gmon["out"])]
    theirs = gprof(NATIVE, argv, b.dir).stdout.decode()
    ours = gmonlens(argv, b.dir).stdout.decode()
    never = _index_of(ours, "never")
    assert f"0/1           never [{never}]" in theirs  # never -> after: gprof finds forward calls
    assert _added_lines(theirs, ours) == [
        f"                0.00    0.00       0/0           never [{never}]",  # under main
        f"                0.00    0.00       0/1           never [{never}]",  # above before
    ]
    main_entry = ours.split("main [", 1)[1].split("-----", 1)[0]
    assert f"0/0           never [{never}]" in main_entry


def test_x86_64_cycles_closed_by_backward_static_arcs(workshop: Workshop) -> None:
    """The cycle {a1, b1} needs the backward arc b1 -> a1, which gprof -c misses."""
    b = get(workshop, CALLS, NATIVE)
    argv = ["-b", "-c", str(b.binary), str(b.gmon["out"])]
    theirs = gprof(NATIVE, argv, b.dir).stdout.decode()
    ours = gmonlens(argv, b.dir).stdout.decode()
    assert "b1 <cycle" not in theirs and "b2 <cycle 1>" in theirs  # only the forward-closed cycle
    assert "<cycle 1 as a whole>" in ours and "<cycle 2 as a whole>" in ours
    assert "a1 <cycle" in ours and "b1 <cycle" in ours and "a2 <cycle" in ours and "b2 <cycle" in ours
    # the never-executed self call shows as a 0 count line above and below rec's entry
    rec_self = [line for line in ours.splitlines() if line.split()[:2] == ["0", "rec"]]
    assert len(rec_self) == 2, rec_self


def test_profile_without_arcs_has_no_call_graph_even_with_c(workshop: Workshop, tmp_path: Path) -> None:
    b = get(workshop, PIN, NATIVE)
    data = b.gmon["out"].read_bytes()
    hist_only = tmp_path / "gmon.hist"
    # GNU format: 20-byte header, then tagged records; keep the histogram record(s) only
    hist_only.write_bytes(_keep_tags(data, {0}, 8))
    compare_reports(NATIVE, ["-c", str(b.binary), str(hist_only)], b.dir)


def test_profile_without_histogram_gets_no_static_arcs(workshop: Workshop, tmp_path: Path) -> None:
    """gprof only scans inside histogram ranges: with no histogram, -c adds nothing."""
    b = get(workshop, PIN, AARCH64)
    arcs_only = tmp_path / "gmon.arcs"
    arcs_only.write_bytes(_keep_tags(b.gmon["out"].read_bytes(), {1}, 8))
    compare_reports(AARCH64, ["-c", str(b.binary), str(arcs_only)], b.dir)


def _keep_tags(data: bytes, keep: set[int], size: int) -> bytes:
    out, i = bytearray(data[:20]), 20
    while i < len(data):
        tag = data[i]
        if tag == 0:
            (n,) = struct.unpack_from("<I", data, i + 1 + 2 * size)
            length = 1 + 2 * size + 4 + 4 + 15 + 1 + 2 * n
        elif tag == 1:
            length = 1 + 2 * size + 4
        else:
            raise AssertionError(f"unexpected tag {tag}")
        if tag in keep:
            out += data[i : i + length]
        i += length
    return bytes(out)


def _lead_cases() -> list[str]:
    from test_gprof_compare import CASES

    return sorted(CASES)


@pytest.mark.parametrize("name", _lead_cases())
def test_x86_64_c_on_the_comparison_programs(workshop: Workshop, name: str) -> None:
    """For the gprof comparison programs, where `gprof -b -c` differs from us by the backward calls
    it misses: our `-c` report equals gprof's report given our static arcs as count-0 records."""
    from test_gprof_compare import CASES

    b = workshop.get(CASES[name].program)
    _, pairs, starts, size = static_pairs(b.binary)
    zero = with_zero_arcs(b.gmon["out"], b.dir / "gmon.zero-arcs", pairs, starts, size)
    for extra in ((), ("-z",)):
        expected = gprof(NATIVE, ["-b", *extra, str(b.binary), str(zero)], b.dir)
        actual = gmonlens(["-b", "-c", *extra, str(b.binary), str(b.gmon["out"])], b.dir)
        assert expected.returncode == 0 and actual.returncode == 0, (expected.err, actual.err)
        assert actual.stdout.decode() == expected.stdout.decode()
