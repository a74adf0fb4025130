"""gmon.out recovered from hex dump transcripts (profile/hexdump.py, `report --hexdump`), and the
one-line verdicts on firmware profiles that cannot be read as they are (profile/fit.py,
load/program.py): all without a toolchain, on the bare-metal golden target's files."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gmonlens.commands.dispatch import run
from gmonlens.common.errors import GmonFormatError
from gmonlens.profile.hexdump import decode_hexdump
from gmonwriter import Hist, gnu_file, read_gnu
from golden_targets import TARGETS, elf_bytes, gmon_bytes

FIRMWARE = next(t for t in TARGETS if t.name == "arm-none-eabi")
GOLDEN = Path(__file__).resolve().parent / "golden" / "targets"


def _text(b: bytes) -> str:
    return "".join(chr(x) if 32 <= x < 127 else "." for x in b)


def nuttx(data: bytes, chunk: int = 1024) -> str:
    """NuttX's `hexdump FILE` on a console: a heading per chunk, offsets within it, text column."""
    out = ["nsh> gprof dump /tmp/gmon.out", "nsh> hexdump /tmp/gmon.out"]
    for c in range(0, len(data), chunk):
        out.append(f"/tmp/gmon.out at {c:08x}:")
        for o in range(0, min(chunk, len(data) - c), 16):
            b = data[c + o : c + o + 16]
            out.append(f"{o:04x}: " + " ".join(f"{x:02x}" for x in b) + " " + _text(b))
    return "\n".join([*out, "nsh> "]) + "\n"


def hexdump_c(data: bytes) -> str:
    """`hexdump -C`: equal lines after the first become one `*` line."""
    out, prev, starred = [], None, False
    for o in range(0, len(data), 16):
        b = data[o : o + 16]
        if b == prev and len(b) == 16:
            if not starred:
                out.append("*")
                starred = True
            continue
        prev, starred = b, False
        hexes = " ".join(f"{x:02x}" for x in b[:8]) + "  " + " ".join(f"{x:02x}" for x in b[8:])
        out.append(f"{o:08x}  {hexes:<48}  |{_text(b)}|")
    out.append(f"{len(data):08x}")
    return "\n".join(out) + "\n"


def xxd(data: bytes) -> str:
    out = []
    for o in range(0, len(data), 16):
        b = data[o : o + 16]
        groups = " ".join(b[i : i + 2].hex() for i in range(0, len(b), 2))
        out.append(f"{o:08x}: {groups:<39}  {_text(b)}")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("dialect", [nuttx, hexdump_c, xxd], ids=["nuttx", "hexdump-C", "xxd"])
def test_transcripts_give_the_file_back(dialect: object) -> None:
    data = gmon_bytes(FIRMWARE)
    assert callable(dialect)
    assert decode_hexdump(dialect(data), "console.log") == data


def test_text_column_that_looks_like_bytes() -> None:
    """A line whose text column is hex digits and spaces: its length tells it apart."""
    data = b"ab cd ef 12" + bytes(5) + b"0123456789abcdef" + b"de ad"
    assert decode_hexdump(nuttx(data), "log") == data
    assert decode_hexdump(hexdump_c(data), "log") == data


def test_lost_line_and_contradiction_are_one_line_each() -> None:
    lines = nuttx(gmon_bytes(FIRMWARE)).splitlines()
    lost = "\n".join(line for i, line in enumerate(lines) if i != 5)
    with pytest.raises(GmonFormatError, match=r"^log: hex dump has no bytes at 0x20-0x2f \(a line lost"):
        decode_hexdump(lost, "log")
    twice = "0000: 01 02 03 04\n0004: 05 06 07 08\n0002: 03 09\n"
    with pytest.raises(GmonFormatError, match="two values for the byte at 0x3 \\(04, 09\\)"):
        decode_hexdump(twice, "log")
    with pytest.raises(GmonFormatError, match="no hex dump lines"):
        decode_hexdump("nsh> help\nnothing here\n", "log")


def _report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str
) -> tuple[int, str, str]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GMONLENS_CACHE", "off")
    (tmp_path / "fw.elf").write_bytes(elf_bytes(FIRMWARE))
    status = run(["report", "-b", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_report_hexdump_prints_gprofs_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "console.log").write_text(nuttx(gmon_bytes(FIRMWARE)))
    status, out, err = _report(tmp_path, monkeypatch, capsys, "fw.elf", "--hexdump", "console.log")
    assert status == 0, err
    assert out == (GOLDEN / "arm-none-eabi.plain.txt").read_text()


def _with_hist(change: dict[str, object] | Hist) -> bytes:
    recs = read_gnu(gmon_bytes(FIRMWARE), address_size=4, little_endian=True)
    hist = change if isinstance(change, Hist) else dataclasses.replace(recs[0], **change)  # type: ignore[arg-type]
    return gnu_file([hist, *recs[1:]], address_size=4, little_endian=True)


@pytest.mark.parametrize(
    ("gmon", "status", "message"),
    [
        (lambda: _with_hist({"prof_rate": 0}), 0, "warning: gmon.out: the histogram's sampling rate is 0 Hz"),
        (
            lambda: _with_hist({"prof_rate": 4_000_000_000}),
            0,
            "warning: gmon.out: sampling rate of 4000000000 Hz",
        ),
        (
            lambda: _with_hist(Hist(0x30000000, 0x30000100, [1] * 64, prof_rate=1000)),
            1,
            "its histogram covers 0x30000000-0x30000100, outside every executable section (.text 0x8001000-",
        ),
        (
            lambda: gnu_file(
                read_gnu(gmon_bytes(FIRMWARE), address_size=4, little_endian=True), address_size=8
            ),
            1,
            "written by a program with 8-byte little-endian addresses, but the executable has 4-byte",
        ),
    ],
    ids=["rate-0", "rate-absurd", "outside-code", "word-size"],
)
def test_firmware_profiles_that_do_not_read_say_why_in_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    gmon: object,
    status: int,
    message: str,
) -> None:
    assert callable(gmon)
    (tmp_path / "gmon.out").write_bytes(gmon())
    got, _out, err = _report(tmp_path, monkeypatch, capsys, "fw.elf", "gmon.out")
    assert got == status and message in err and len(err.splitlines()) == 1, err


def test_histogram_over_part_of_text_is_held_to_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A histogram over part of .text (a rebuilt binary) is still an error; one over another
    executable section alone (RAM code) reads: tests/integration/test_firmware.py."""
    hist = read_gnu(gmon_bytes(FIRMWARE), address_size=4, little_endian=True)[0]
    assert isinstance(hist, Hist)
    (tmp_path / "gmon.out").write_bytes(
        _with_hist(dataclasses.replace(hist, high_pc=hist.low_pc + 64, counts=hist.counts[:16]))
    )
    status, _out, err = _report(tmp_path, monkeypatch, capsys, "fw.elf", "gmon.out")
    assert status == 1 and "before the end of .text" in err
