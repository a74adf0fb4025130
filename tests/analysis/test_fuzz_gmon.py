"""Any bytes given as a profile raise only the engine's own error (GmonlensError), never another
exception: random bytes, random bytes behind a valid GNU header, and valid files with mutations.
Likewise any executable's compressed section (gABI or GNU .zdebug, NOBITS, sizes that lie)."""

from __future__ import annotations

import struct
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import elfpatch
from binaries import open_elf
from gmonlens.common.errors import GmonlensError
from gmonlens.profile.gmon import GmonFile, accumulate, parse_gmon
from gmonwriter import Arc, Hist, bsd_file, gnu_file

LAYOUT = st.sampled_from([(8, True), (8, False), (4, True), (4, False)])
FMT = st.sampled_from(["auto", "gnu", "bsd", "4.4bsd"])
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def try_parse(data: bytes, layout: tuple[int, bool], fmt: str) -> GmonFile | None:
    try:
        return parse_gmon(data, path="fuzz.out", address_size=layout[0], little_endian=layout[1], fmt=fmt)
    except GmonlensError as e:
        msg = str(e)
        assert msg.startswith("fuzz.out: ") and "\n" not in msg, msg
        return None


def try_accumulate(files: list[GmonFile]) -> None:
    try:
        accumulate(files)
    except GmonlensError as e:
        assert "\n" not in str(e)


@FUZZ
@given(data=st.binary(max_size=400), layout=LAYOUT, fmt=FMT)
def test_random_bytes(data: bytes, layout: tuple[int, bool], fmt: str) -> None:
    f = try_parse(data, layout, fmt)
    if f is not None:
        try_accumulate([f, f])


@FUZZ
@given(
    version=st.sampled_from([0, 1, 2]),
    body=st.binary(max_size=400),
    tags=st.lists(st.integers(0, 3), max_size=6),
    layout=LAYOUT,
)
def test_random_records_behind_gnu_header(
    version: int, body: bytes, tags: list[int], layout: tuple[int, bool]
) -> None:
    # Interleave plausible tags with random bytes so the parser gets past the first record.
    chunks = [bytes([t]) + body[i * 20 : i * 20 + 20 + t * 7] for i, t in enumerate(tags)]
    data = gnu_file([], address_size=layout[0], little_endian=layout[1], version=version) + b"".join(chunks)
    try_parse(data + body, layout, "auto")


def _valid_files() -> list[bytes]:
    h = Hist(0x1000, 0x1100, [1, 0, 2] + [0] * 125, prof_rate=100)
    arcs = [Arc(0x1010, 0x1080, 3), Arc(0x1090, 0x1010, 1)]
    return [
        gnu_file([h, *arcs]),
        gnu_file([*arcs, h, h]),
        bsd_file(h, arcs, bsd44=True),
        bsd_file(h, arcs, bsd44=False),
    ]


VALID = _valid_files()


@FUZZ
@given(
    which=st.integers(0, len(VALID) - 1),
    edits=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=8),
    cut=st.one_of(st.none(), st.integers(0, 10_000)),
    fmt=FMT,
)
def test_mutated_valid_files(which: int, edits: list[tuple[int, int]], cut: int | None, fmt: str) -> None:
    buf = bytearray(VALID[which])
    for pos, byte in edits:
        buf[pos % len(buf)] = byte
    if cut is not None:
        del buf[cut % (len(buf) + 1) :]
    f = try_parse(bytes(buf), (8, True), fmt)
    if f is not None:
        g = try_parse(VALID[which], (8, True), "auto")
        assert g is not None
        try_accumulate([g, f])


@pytest.mark.parametrize("data", VALID, ids=["gnu", "gnu-2hist", "bsd44", "oldbsd"])
def test_valid_seed_files_parse(data: bytes) -> None:
    assert try_parse(data, (8, True), "auto") is not None


# ---- the executable's compressed sections (issue 22): any bytes give the engine's own error ------
_CHDR = st.tuples(
    st.sampled_from([0, 1, 2, 3, 0xFFFFFFFF]),  # ch_type: none, zlib, zstd, unknown
    st.sampled_from([0, 1, 100, 1 << 20, 1 << 30, 1 << 40, 2**64 - 1]),  # ch_size as claimed
)


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    chdr=_CHDR,
    payload=st.one_of(
        st.binary(max_size=300),
        st.integers(0, 40 << 20).map(lambda n: zlib.compress(bytes(n), 9)),  # real zlib of zeros
    ),
    gnu=st.booleans(),
    nobits=st.booleans(),
    claim=st.one_of(st.none(), st.sampled_from([0, 7, 1 << 31, 2**63])),
)
def test_compressed_sections(
    tmp_path_factory: pytest.TempPathFactory,
    chdr: tuple[int, int],
    payload: bytes,
    gnu: bool,
    nobits: bool,
    claim: int | None,
) -> None:
    kind, size = chdr
    if gnu:
        name, data, flags = ".zdebug_str", b"ZLIB" + (size % 2**64).to_bytes(8, "big") + payload, 0
    else:
        name, data, flags = (
            ".debug_str",
            struct.pack("<IIQQ", kind, 0, size, 1) + payload,
            elfpatch.SHF_COMPRESSED,
        )
    blob = elfpatch.tiny_elf(
        [(name, elfpatch.SHT_NOBITS if nobits else 1, flags, data)],
        claimed={name: claim} if claim is not None else None,
    )
    path = tmp_path_factory.mktemp("elf") / "bin"
    path.write_bytes(blob)
    try:
        with open_elf(str(path)) as elf:
            sec = elf.find(".debug_str")
            assert sec is not None
            out = elf.data(sec)
            assert len(out) <= elf.budget.section_limit(".debug_str")
            if nobits:
                assert out == b""
    except GmonlensError as e:
        assert "\n" not in str(e) and str(e).startswith(str(path))
