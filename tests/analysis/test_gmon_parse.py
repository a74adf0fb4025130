"""parse_gmon / accumulate on gmon bytes built field by field (tests/gmonwriter.py).

Rules: docs/gprof-behaviour.md §2 (formats, detection, summing, refusals).
"""

from __future__ import annotations

import tracemalloc

import pytest

from gmonlens.common.errors import GmonFormatError, GmonlensError
from gmonlens.profile.gmon import GmonFile, accumulate, parse_gmon
from gmonwriter import BB, Arc, GmonWriter, Hist, bsd_file, gnu_file, gnu_to_bsd

LAYOUTS = [
    pytest.param(8, True, id="64le"),
    pytest.param(8, False, id="64be"),
    pytest.param(4, True, id="32le"),
    pytest.param(4, False, id="32be"),
]

HIST = Hist(0x1000, 0x1400, [0, 3, 0, 65535, 1] + [0] * 507 + [7], prof_rate=100)  # 513 bins
ARCS = [Arc(0x1210, 0x1108, 5), Arc(0x1300, 0x1108, 1), Arc(0x1210, 0x1108, 2), Arc(0x1111, 0x1111, 9)]


def parse(
    data: bytes, asize: int = 8, le: bool = True, fmt: str = "auto", path: str = "gmon.out"
) -> GmonFile:
    return parse_gmon(data, path=path, address_size=asize, little_endian=le, fmt=fmt)


def hist_tuple(h: Hist) -> tuple[int, int, tuple[int, ...], int]:
    return (h.low_pc, h.high_pc, tuple(h.counts), h.prof_rate)


def model_hist(h: object) -> tuple[int, int, tuple[int, ...], int]:
    return (h.low_pc, h.high_pc, tuple(h.counts), h.prof_rate)  # type: ignore[attr-defined]


def model_arcs(arcs: object) -> list[tuple[int, int, int]]:
    return [(a.from_pc, a.self_pc, a.count) for a in arcs]  # type: ignore[attr-defined]


def arc_tuples(arcs: list[Arc]) -> list[tuple[int, int, int]]:
    return [(a.from_pc, a.self_pc, a.count) for a in arcs]


# ---------------------------------------------------------------------------------------------------
# GNU format round trips
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("asize", "le"), LAYOUTS)
def test_gnu_round_trip(asize: int, le: bool) -> None:
    data = gnu_file([HIST, *ARCS, BB([(0x1100, 3), (0x1200, 4)])], address_size=asize, little_endian=le)
    f = parse(data, asize, le)
    assert f.format == "gnu"
    assert [model_hist(h) for h in f.histograms] == [hist_tuple(HIST)]
    h = f.histograms[0]
    assert (h.dimension, h.dimension_abbrev) == ("seconds", "s")
    assert model_arcs(f.arcs) == arc_tuples(ARCS)  # record order, duplicates kept
    assert f.bb_count == 2


def test_gnu_header_only_is_valid_and_empty() -> None:
    f = parse(gnu_file([]))
    assert f.histograms == () and f.arcs == ()
    d = accumulate([f])
    assert not d.has_histogram and not d.has_call_graph and d.hz == 0


def test_gnu_version_zero_accepted() -> None:
    f = parse(gnu_file([HIST], version=0))
    assert len(f.histograms) == 1


@pytest.mark.parametrize("version", [2, 0x51879, 0xFFFFFFFF])
def test_gnu_bad_version(version: int) -> None:
    with pytest.raises(GmonFormatError, match="version") as e:
        parse(gnu_file([HIST], version=version), path="prof/gmon.out")
    assert str(e.value).startswith("prof/gmon.out: ")


@pytest.mark.parametrize("tag", [3, 4, 7, 0x80, 0xFF])
def test_gnu_bad_tag(tag: int) -> None:
    data = gnu_file([HIST, ARCS[0]]) + bytes([tag]) + b"\0" * 40
    with pytest.raises(GmonFormatError, match="bad tag") as e:
        parse(data)
    assert "gmon.out" in str(e.value)


def test_gnu_header_truncated() -> None:
    for n in range(4, 20):
        with pytest.raises(GmonFormatError):
            parse(gnu_file([])[:n])


@pytest.mark.parametrize(("asize", "le"), LAYOUTS)
def test_gnu_truncated_records(asize: int, le: bool) -> None:
    """Every cut inside a record is fatal; cuts at record boundaries are valid files."""
    records = [HIST, ARCS[0], BB([(1, 2)]), ARCS[1]]
    boundaries = {len(gnu_file(records[:k], address_size=asize, little_endian=le)) for k in range(5)}
    full = gnu_file(records, address_size=asize, little_endian=le)
    for cut in range(20, len(full)):
        data = full[:cut]
        if cut in boundaries:
            parse(data, asize, le)
            continue
        with pytest.raises(GmonFormatError) as e:
            parse(data, asize, le)
        assert str(e.value).startswith("gmon.out: ")
        assert "\n" not in str(e.value)


def refused_cheaply(data: bytes) -> tuple[GmonFormatError, int]:
    """Parse `data`, which must be refused; returns the error and the peak allocation (bytes)."""
    tracemalloc.start()
    try:
        with pytest.raises(GmonFormatError) as e:
            parse(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return e.value, peak


@pytest.mark.parametrize("bins", [2**31, 2**31 - 1, 2**32 - 1, 1 << 28])
def test_huge_histogram_fails_fast_without_allocation(bins: int) -> None:
    w = GmonWriter().gnu_header()
    w.u8(0)  # tag: histogram
    w.ptr(0x1000)  # low_pc
    w.ptr(0x2000)  # high_pc
    w.u32(bins)  # hist_size: far more bins than the file holds
    w.u32(100)  # prof_rate
    w.raw(b"seconds".ljust(15, b"\0") + b"s")  # dimen, dimen_abbrev
    w.raw(b"\1\0" * 64)  # only 64 bins present
    err, peak = refused_cheaply(w.getvalue())  # fast because nothing is allocated (no wall-time check)
    assert peak < 1 << 20, f"parse allocated {peak} bytes for a {len(w.getvalue())}-byte file"
    assert str(err).startswith("gmon.out: ")


def test_huge_bb_record_fails_fast() -> None:
    w = GmonWriter().gnu_header()
    w.u8(2)  # tag: basic-block counts
    w.u32(0xFFFFFFFF)  # number of pairs claimed
    w.ptr(0x1000).ptr(1)  # one pair present
    _, peak = refused_cheaply(w.getvalue())
    assert peak < 1 << 20


def test_empty_file_refused() -> None:
    with pytest.raises(GmonFormatError) as e:
        parse(b"", path="empty.out")
    assert str(e.value).startswith("empty.out: ")


def test_errors_are_gmonlens_errors() -> None:
    assert issubclass(GmonFormatError, GmonlensError)


# ---------------------------------------------------------------------------------------------------
# BSD formats
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("asize", "le"), LAYOUTS)
@pytest.mark.parametrize("bsd44", [False, True], ids=["oldbsd", "bsd44"])
def test_bsd_round_trip(asize: int, le: bool, bsd44: bool) -> None:
    h = Hist(0x1000, 0x1400, HIST.counts, prof_rate=1000)
    data = bsd_file(h, ARCS, bsd44=bsd44, address_size=asize, little_endian=le)
    f = parse(data, asize, le)
    assert f.format == ("4.4bsd" if bsd44 else "bsd")
    assert len(f.histograms) == 1
    got = f.histograms[0]
    assert (got.low_pc, got.high_pc, tuple(got.counts)) == (h.low_pc, h.high_pc, tuple(h.counts))
    assert got.prof_rate == (1000 if bsd44 else 100)  # old BSD: hz = hertz() = 100
    assert model_arcs(f.arcs) == arc_tuples(ARCS)
    d = accumulate([f])
    assert d.has_histogram and d.has_call_graph
    assert d.hz == (1000 if bsd44 else 100)


@pytest.mark.parametrize(("asize", "header"), [(8, 40), (4, 32)])
def test_bsd44_header_size(asize: int, header: int) -> None:
    """The 4.4BSD header: lpc, hpc, ncnt, version, profrate, spare[3] with no padding: 40 bytes
    on 64-bit and 32 on 32-bit (checked with gprof -d64 on an i386 binary: samp_bytes = ncnt-32)."""
    w = GmonWriter(asize)
    assert w.bsd_header_size(True) == header
    h = Hist(0, 0x40, [1, 2, 3, 4] + [0] * 12, prof_rate=100)
    f = parse(bsd_file(h, bsd44=True, address_size=asize), asize)
    assert tuple(f.histograms[0].counts) == tuple(h.counts)


def test_bsd_arc_counts_are_pointer_sized() -> None:
    h = Hist(0, 0x40, [0] * 16)
    f = parse(bsd_file(h, [Arc(0x10, 0x20, 0x1_0000_0001)], bsd44=True))
    assert f.arcs[0].count in (0x1_0000_0001, 1)  # 64-bit count; gprof keeps what fits
    f32 = parse(bsd_file(h, [Arc(0x10, 0x20, 7)], bsd44=False, address_size=4), 4)
    assert model_arcs(f32.arcs) == [(0x10, 0x20, 7)]


def test_bsd_without_arcs_still_has_call_graph() -> None:
    d = accumulate([parse(bsd_file(Hist(0, 0x40, [1] * 16), bsd44=False))])
    assert d.has_call_graph


def test_bsd_ncnt_larger_than_file_refused() -> None:
    w = GmonWriter()
    w.bsd_header(0, 0x40, 16, 100, ncnt=1 << 31)  # ncnt claims 2 GiB of samples
    w.raw(b"\0" * 32)
    _, peak = refused_cheaply(w.getvalue())
    assert peak < 1 << 20


def test_bsd_partial_arc_refused() -> None:
    data = bsd_file(Hist(0, 0x40, [0] * 16), [Arc(1, 2, 3)], bsd44=True)
    with pytest.raises(GmonFormatError):
        parse(data[:-3])


def test_forced_44bsd_on_old_header_refused() -> None:
    data = bsd_file(Hist(0, 0x40, [0] * 16), bsd44=False)
    with pytest.raises(GmonFormatError):
        parse(data, fmt="4.4bsd")


def test_forced_gnu_on_bsd_refused() -> None:
    with pytest.raises(GmonFormatError):
        parse(bsd_file(Hist(0, 0x40, [0] * 16), bsd44=True), fmt="gnu")


def test_unknown_format_name_refused() -> None:
    with pytest.raises(GmonlensError):
        parse(gnu_file([]), fmt="prof")


@pytest.mark.parametrize("bsd44", [False, True])
def test_gnu_to_bsd_converter_keeps_data(bsd44: bool) -> None:
    gnu = gnu_file([HIST, *ARCS])
    f = parse(gnu_to_bsd(gnu, bsd44=bsd44))
    assert model_hist(f.histograms[0])[:3] == hist_tuple(HIST)[:3]
    assert model_arcs(f.arcs) == arc_tuples(ARCS)


# ---------------------------------------------------------------------------------------------------
# Summing (accumulate)
# ---------------------------------------------------------------------------------------------------
def test_same_range_summed_bin_by_bin_without_u16_wrap() -> None:
    a = parse(gnu_file([Hist(0, 0x40, [60000, 1] + [0] * 14)]), path="a")
    b = parse(gnu_file([Hist(0, 0x40, [60000, 2] + [0] * 13 + [5], prof_rate=1000)]), path="b")
    d = accumulate([a, b])
    assert len(d.histograms) == 1
    assert tuple(d.histograms[0].counts) == (120000, 3, *([0] * 13), 5)
    assert d.hz == 100  # the first record's rate; later rates are not checked


def test_same_range_twice_in_one_file_summed() -> None:
    d = accumulate([parse(gnu_file([Hist(0, 0x40, [1] * 16), Hist(0, 0x40, [2] * 16)]))])
    assert tuple(d.histograms[0].counts) == (3,) * 16


def test_disjoint_ranges_kept_as_separate_records() -> None:
    h1, h2 = Hist(0, 0x40, [1] * 16), Hist(0x40, 0x80, [2] * 16)
    d = accumulate([parse(gnu_file([h1])), parse(gnu_file([h2]))])
    assert [model_hist(h)[:3] for h in d.histograms] == [hist_tuple(h1)[:3], hist_tuple(h2)[:3]]
    assert d.scale == 2.0  # 0x40 bytes = 32 units over 16 bins


def test_overlapping_ranges_refused() -> None:
    a = parse(gnu_file([Hist(0, 0x40, [1] * 16)]), path="a.out1")
    b = parse(gnu_file([Hist(0x20, 0x60, [1] * 16)]), path="b.out2")
    with pytest.raises(GmonFormatError, match="overlapping") as e:
        accumulate([a, b])
    assert str(e.value).startswith("b.out2: ")


def test_different_scales_refused() -> None:
    a = parse(gnu_file([Hist(0, 0x40, [1] * 16)]), path="a")
    b = parse(gnu_file([Hist(0x100, 0x140, [1] * 8)]), path="b")  # scale 2.0 vs 1.0
    with pytest.raises(GmonFormatError, match="scale"):
        accumulate([a, b])


def test_scales_within_1e6_accepted() -> None:
    n = 2_000_000  # one unit more range changes the scale by 1/n = 5e-7
    a = parse(gnu_file([Hist(0, 2 * 3 * n, [0] * n)]), path="a")  # scale 3.0
    b = parse(gnu_file([Hist(0x10_000_000, 0x10_000_000 + 2 * (3 * n + 1), [0] * n)]), path="b")
    assert 0 < b.histograms[0].scale - 3.0 < 1e-6
    assert len(accumulate([a, b]).histograms) == 2


def test_dimension_change_refused() -> None:
    a = parse(gnu_file([Hist(0, 0x40, [1] * 16)]))
    b = parse(gnu_file([Hist(0x40, 0x80, [1] * 16, dimen=b"cycles", dimen_abbrev=b"c")]))
    with pytest.raises(GmonFormatError):
        accumulate([a, b])


def test_arcs_concatenated_in_file_order() -> None:
    a = parse(gnu_file([ARCS[0], ARCS[1]]))
    b = parse(gnu_file([HIST, ARCS[2], ARCS[0]]))
    d = accumulate([a, b])
    assert model_arcs(d.arcs) == arc_tuples([ARCS[0], ARCS[1], ARCS[2], ARCS[0]])
    assert d.has_call_graph and d.has_histogram


def test_arcs_only_file_has_no_histogram() -> None:
    d = accumulate([parse(gnu_file(ARCS))])
    assert d.has_call_graph and not d.has_histogram and d.hz == 0


def test_histogram_only_file_has_no_call_graph() -> None:
    d = accumulate([parse(gnu_file([HIST]))])
    assert d.has_histogram and not d.has_call_graph and d.hz == 100


@pytest.mark.parametrize("bsd44", [False, True])
def test_bsd_files_summed(bsd44: bool) -> None:
    h = Hist(0, 0x40, [1] * 16, prof_rate=100)
    a = parse(bsd_file(h, [ARCS[0]], bsd44=bsd44))
    b = parse(bsd_file(h, [ARCS[1]], bsd44=bsd44))
    d = accumulate([a, b])
    assert tuple(d.histograms[0].counts) == (2,) * 16
    assert model_arcs(d.arcs) == arc_tuples([ARCS[0], ARCS[1]])


@pytest.mark.parametrize(
    "other",
    [
        pytest.param(Hist(0, 0x80, [1] * 16), id="highpc"),
        pytest.param(Hist(0x10, 0x50, [1] * 16), id="lowpc"),
        pytest.param(Hist(0, 0x40, [1] * 32), id="nbins"),
    ],
)
def test_incompatible_bsd_headers_refused(other: Hist) -> None:
    a = parse(bsd_file(Hist(0, 0x40, [1] * 16), bsd44=False), path="one")
    b = parse(bsd_file(other, bsd44=False), path="two")
    with pytest.raises(GmonFormatError, match="incompatible") as e:
        accumulate([a, b])
    assert str(e.value).startswith("two: ")


def test_bsd44_rate_change_refused() -> None:
    a = parse(bsd_file(Hist(0, 0x40, [1] * 16, prof_rate=100), bsd44=True))
    b = parse(bsd_file(Hist(0, 0x40, [1] * 16, prof_rate=1000), bsd44=True))
    with pytest.raises(GmonFormatError):
        accumulate([a, b])
