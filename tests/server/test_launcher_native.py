"""vscode-extension/python/launch.py on a bundled capstone library that does not load: one built for
another architecture than the interpreter is said to be so (glibc's own text for it is "cannot open
shared object file: No such file or directory"), any other failure keeps the loader's text. The
headers are crafted here (ELF, Mach-O thin and universal, PE), so no foreign toolchain is needed."""

from __future__ import annotations

import importlib.util
import struct
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

LAUNCH = Path(__file__).resolve().parents[2] / "vscode-extension" / "python" / "launch.py"
EM = {"i386": 3, "x86-64": 62, "AArch64": 183, "RISC-V": 243}


def _launch() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gmonlens_vsix_launch", LAUNCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defines; main() runs only as a script
    return module


def elf(machine: int, bits: int = 64, order: str = "<") -> bytes:
    """An ELF header of a shared object (ET_DYN) for `machine`, nothing after it."""
    ident = b"\x7fELF" + bytes([1 if bits == 32 else 2, 1 if order == "<" else 2, 1, 0]) + bytes(8)
    if bits == 64:
        return ident + struct.pack(order + "HHIQQQIHHHHHH", 3, machine, 1, 0, 64, 0, 0, 64, 56, 0, 64, 0, 0)
    return ident + struct.pack(order + "HHIIIIIHHHHHH", 3, machine, 1, 0, 52, 0, 0, 52, 32, 0, 40, 0, 0)


def macho(cpu: int) -> bytes:
    return struct.pack("<IiiIIII", 0xFEEDFACF, cpu, 3, 6, 0, 0, 0) + bytes(4)


def fat(*cpus: int) -> bytes:
    arches = b"".join(struct.pack(">iiIII", cpu, 3, 4096 * (i + 1), 4096, 12) for i, cpu in enumerate(cpus))
    return struct.pack(">II", 0xCAFEBABE, len(cpus)) + arches


def pe(machine: int) -> bytes:
    return b"MZ" + bytes(58) + struct.pack("<I", 64) + b"PE\x00\x00" + struct.pack("<H", machine) + bytes(18)


@pytest.mark.parametrize(
    ("header", "names"),
    [
        (elf(62), {"x86-64"}),
        (elf(183), {"AArch64"}),
        (elf(3, bits=32), {"i386"}),
        (elf(243, bits=64), {"RISC-V 64-bit"}),
        (elf(21, bits=64, order=">"), {"PowerPC64 64-bit"}),
        (elf(9999, bits=32), {"ELF machine 9999 32-bit"}),
        (macho(0x01000007), {"x86-64"}),
        (macho(0x0100000C), {"AArch64"}),
        (fat(0x01000007, 0x0100000C), {"x86-64", "AArch64"}),
        (pe(0x8664), {"x86-64"}),
        (pe(0xAA64), {"AArch64"}),
        (b"garbage" * 20, None),
        (b"\x7fELF", None),
        (b"\xca\xfe\xba\xbe\x00\x00\x00\x34" + bytes(64), None),  # a Java class file (version 52)
    ],
    ids=[
        "elf-x86-64",
        "elf-aarch64",
        "elf-i386",
        "elf-riscv64",
        "elf-ppc64-be",
        "elf-unknown",
        "macho-x86-64",
        "macho-arm64",
        "macho-universal",
        "pe-x64",
        "pe-arm64",
        "garbage",
        "elf-truncated",
        "java-class",
    ],
)
def test_machines_from_headers(tmp_path: Path, header: bytes, names: set[str] | None) -> None:
    f = tmp_path / "lib"
    f.write_bytes(header)
    assert _launch().machines(str(f)) == names


def test_machines_of_a_missing_file(tmp_path: Path) -> None:
    assert _launch().machines(str(tmp_path / "absent")) is None


def _foreign_and_own() -> tuple[bytes, bytes, str]:
    """An ELF library header for another architecture than this interpreter's, one for its own,
    and the interpreter's architecture name."""
    own = _launch().machines(sys.executable)
    if own not in ({"x86-64"}, {"AArch64"}):
        pytest.skip(f"this interpreter is for {own}: no crafted header of its own architecture here")
    (name,) = own
    other = "AArch64" if name == "x86-64" else "x86-64"
    return elf(EM[other]), elf(EM[name]), name


def test_other_architecture_names_both(tmp_path: Path) -> None:
    foreign, same, own = _foreign_and_own()
    lib = tmp_path / "libcapstone.so"
    lib.write_bytes(foreign)
    why = _launch().other_architecture(str(lib), sys.executable)
    assert why is not None and "another architecture" in why and f"this Python for {own}" in why, why
    lib.write_bytes(same)
    assert _launch().other_architecture(str(lib), sys.executable) is None
    lib.write_bytes(b"garbage" * 20)
    assert _launch().other_architecture(str(lib), sys.executable) is None


def test_universal_interpreter_runs_one_slice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Of a universal interpreter (macOS), the slice platform.machine() names is the one running."""
    python, lib = tmp_path / "python3", tmp_path / "libcapstone.dylib"
    python.write_bytes(fat(0x01000007, 0x0100000C))
    lib.write_bytes(macho(0x0100000C))
    launch = _launch()
    monkeypatch.setattr(launch.platform, "machine", lambda: "x86_64")
    why = launch.other_architecture(str(lib), str(python))
    assert why is not None and "libcapstone.dylib is for AArch64, this Python for x86-64" in why, why
    monkeypatch.setattr(launch.platform, "machine", lambda: "arm64")
    assert launch.other_architecture(str(lib), str(python)) is None


def _bundle(tmp_path: Path, library: bytes) -> Path:
    """An extension folder with launch.py, a stub server and `library` as the bundled capstone's."""
    ext = tmp_path / "ext"
    (ext / "python").mkdir(parents=True)
    (ext / "python" / "launch.py").write_bytes(LAUNCH.read_bytes())
    server = ext / "bundled" / "libs" / "gmonlens_cli"
    server.mkdir(parents=True)
    (server / "__init__.py").write_text("")
    (server / "__main__.py").write_text("import sys\nsys.stderr.write('stub server %r\\n' % sys.argv[1:])\n")
    (ext / "bundled" / "native" / "capstone" / "lib").mkdir(parents=True)
    (ext / "bundled" / "native" / "capstone" / "lib" / "libcapstone.so").write_bytes(library)
    return ext


def _run(ext: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-I", str(ext / "python" / "launch.py"), "serve"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and "stub server ['serve']" in done.stderr, done
    return done.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's loader (libcapstone.so)")
def test_launcher_says_another_architecture(tmp_path: Path) -> None:
    foreign, _, own = _foreign_and_own()
    stderr = _run(_bundle(tmp_path, foreign))
    line = next(s for s in stderr.splitlines() if "the bundled capstone does not load" in s)
    assert "its library is for another architecture" in line and f"this Python for {own}" in line, line
    assert "No such file or directory" not in line, line
    assert line.endswith("using the interpreter's own, if any"), line


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's loader (libcapstone.so)")
def test_launcher_keeps_the_loaders_text_otherwise(tmp_path: Path) -> None:
    stderr = _run(_bundle(tmp_path, b"garbage" * 20))
    line = next(s for s in stderr.splitlines() if "the bundled capstone does not load" in s)
    assert "invalid ELF header" in line and "architecture" not in line, line
