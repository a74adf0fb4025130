"""`Program` reads each of a load's files once, whatever is asked and however often (no compiler:
a bare ELF header and profiles written with tests/gmonwriter.py)."""

from __future__ import annotations

import struct
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gmonlens.common.errors import ElfError
from gmonlens.load import program as program_module
from gmonlens.load.program import ProfileFiles, Program, is_executable
from gmonwriter import Arc, Hist, gnu_file


def bare_elf(path: Path, e_type: int = 2) -> Path:
    """An x86-64 ELF header and nothing else: no sections (so no symbols), no segments."""
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)  # 64-bit, little endian, version 1
    path.write_bytes(struct.pack("<16sHHIQQQIHHHHHH", ident, e_type, 62, 1, 0, 0, 0, 0, 64, 56, 0, 64, 0, 0))
    return path


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Files opened by a `Program`: profiles read (`program.read_regular`) and executables opened
    (`program.open_regular`: the facade is the only opener), counted by path."""
    counts: Counter[str] = Counter()
    real_read, real_open = program_module.read_regular, program_module.open_regular

    def counting_read(path: str, *args: Any, **kwargs: Any) -> bytes:
        counts[path] += 1
        return real_read(path, *args, **kwargs)

    def counting_open(path: str, *args: Any, **kwargs: Any) -> Any:
        counts[path] += 1
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(program_module, "read_regular", counting_read)
    monkeypatch.setattr(program_module, "open_regular", counting_open)
    return counts


def test_each_file_is_read_once(tmp_path: Path, reads: Counter[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    binary = str(bare_elf(tmp_path / "app"))
    profiles = [tmp_path / "gmon.out", tmp_path / "gmon.out.2"]
    for p in profiles:
        p.write_bytes(gnu_file([Hist(0x1000, 0x1010, [1, 2, 3, 4]), Arc(0x1004, 0x1008, 3)]))
    prog = Program(binary, [str(p) for p in profiles])
    assert prog.header == (8, True, None)
    assert prog.key is not None and len(prog.key) == 64
    data = prog.gmon()
    assert prog.gmon() is data and sum(data.histograms[0].counts) == 20  # summed, parsed once
    assert len(prog.profiles.content_keys()) == 2
    with pytest.raises(ElfError, match="no symbols"):
        prog.image  # noqa: B018
    with pytest.raises(ElfError, match="no symbols"):  # the failure is kept, not read again
        prog.fit()
    assert reads == Counter({binary: 1, str(profiles[0]): 1, str(profiles[1]): 1})


def test_profiles_read_once_for_every_word_size(tmp_path: Path, reads: Counter[str]) -> None:
    """Discovery shares one `ProfileFiles` among its candidate binaries."""
    path = tmp_path / "gmon.out"
    path.write_bytes(gnu_file([Hist(0x1000, 0x1010, [1, 2, 3, 4])], address_size=4))
    files = ProfileFiles([str(path)])
    assert files.gmon(4, True).histograms[0].low_pc == 0x1000
    assert files.gmon(4, True) is files.gmon(4, True)
    with pytest.raises(Exception, match=str(path)):  # unreadable as a 64-bit profile
        files.gmon(8, True)
    assert reads == Counter({str(path): 1})


def test_unreadable_binary_is_reported_once(tmp_path: Path, reads: Counter[str]) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not an executable")
    prog = Program(str(text), [])
    for _ in range(3):
        with pytest.raises(ElfError, match="bad magic"):
            prog.key  # noqa: B018
    assert reads == Counter({str(text): 1})


def test_is_executable(tmp_path: Path) -> None:
    assert is_executable(str(bare_elf(tmp_path / "exec")))
    assert not is_executable(str(bare_elf(tmp_path / "lib.so", e_type=3)))  # no interpreter, no PIE flag
    assert not is_executable(str(bare_elf(tmp_path / "obj.o", e_type=1)))
    (tmp_path / "script").write_text("#!/bin/sh\n")
    assert not is_executable(str(tmp_path / "script"))
    assert not is_executable(str(tmp_path))


def test_with_profiles_shares_the_binary(tmp_path: Path, reads: Counter[str]) -> None:
    binary = str(bare_elf(tmp_path / "app"))
    a, b = tmp_path / "gmon.a", tmp_path / "gmon.b"
    a.write_bytes(gnu_file([Hist(0x1000, 0x1010, [1, 2, 3, 4])]))
    b.write_bytes(gnu_file([Hist(0x1000, 0x1010, [5, 5, 5, 5])]))
    current = Program(binary, [str(a)])
    baseline = current.with_profiles([str(b)])
    assert sum(current.gmon().histograms[0].counts) == 10
    assert sum(baseline.gmon().histograms[0].counts) == 20
    assert baseline.key == current.key
    assert reads == Counter({binary: 1, str(a): 1, str(b): 1})


def test_with_profiles_judges_its_own_profiles(tmp_path: Path) -> None:
    """The fit rule's verdict is the profiles' own: a Program made by `with_profiles` does not
    inherit the first one's (a baseline from another build, or `gmonlens record` trying one
    executable against each process's profile)."""
    from elfwriter import ElfSym, elf_file

    exe = tmp_path / "app"
    exe.write_bytes(
        elf_file(0x401000, b"\xc3" * 0x40, [ElfSym("main", 0x401000, 0x20), ElfSym("f", 0x401020, 0x20)])
    )
    own, other = tmp_path / "own", tmp_path / "other"
    own.write_bytes(gnu_file([Hist(0x400000, 0x401040, [0] * 0x820)]))
    other.write_bytes(gnu_file([Hist(0x400000, 0x402000, [0] * 0x1000)]))  # a larger program's
    first = Program(str(exe), [str(own)])
    assert first.fit().exact
    assert first.with_profiles([str(other)]).fit().errors
    assert first.fit().exact


def test_release_bytes_keeps_the_facts(tmp_path: Path, reads: Counter[str]) -> None:
    """The CLI's load lets go of the bytes before the arithmetic; what was read stays."""
    binary = str(bare_elf(tmp_path / "app"))
    gmon = tmp_path / "gmon.out"
    gmon.write_bytes(gnu_file([Hist(0x1000, 0x1010, [1, 2, 3, 4])]))
    prog = Program(binary, [str(gmon)])
    data, key = prog.gmon(), prog.key
    prog.release_bytes()
    assert prog.gmon() is data and prog.key == key
    assert reads == Counter({binary: 1, str(gmon): 1})
    assert prog.elf().wide and reads[binary] == 2  # asked again: opened again
