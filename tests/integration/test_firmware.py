"""Bare-metal firmware (issue 31): profiles written by the firmware's own runtime, read as they
come off the device, against the bare-metal gprof (arm-none-eabi-gprof, riscv64-unknown-elf-gprof).

ARM: tests/integration/firmware/ built with gcc-arm-none-eabi for a Cortex-M3 (mps2-an385) and
run under qemu-system-arm with semihosting (-icount: samples fall on instruction counts, so a run
is the same every time): the text in "flash" high up at 0x21000000, a hot routine in RAM code
(`.iram`, 0x20000000), SysTick sampling into 16-bit bins over both, arcs from __gnu_mcount_nc;
GNU files at 1 kHz and 10 kHz, a 4.4BSD file at 100 Hz; a firmware whose text section is not
named `.text` (gprof refuses it: the oracle is gprof on a copy renamed with objcopy, the users'
workaround); the GNU profile as a NuttX console hex dump (`--hexdump`).

RISC-V 32 (no Debian cross libc for rv32 Linux): a freestanding bare-metal rv32imac program built
with riscv64-unknown-elf-gcc, never run (no rv32 machine with semihosting is set up here): its gmon.out is written by a helper
that mimics a runtime (samples in each routine, arcs from each call site), read by
riscv64-unknown-elf-gprof with the program's own DWARF (-l, -A).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from gprof_harness import Target, compare_reports, gmonlens, gprof

from gmonwriter import Arc, Hist, gnu_file

FIRMWARE = Path(__file__).resolve().parent / "firmware"
ARM = Target("arm-none-eabi", cc="arm-none-eabi-gcc", gprof="arm-none-eabi-gprof", address_size=4)
RV32 = Target("rv32", cc="riscv64-unknown-elf-gcc", gprof="riscv64-unknown-elf-gprof", address_size=4)
QEMU = "qemu-system-arm"
CFLAGS = ("-mcpu=cortex-m3", "-mthumb", "-O1", "-g", "-ffreestanding")


@dataclass(frozen=True)
class Build:
    """One firmware build and run: the ELF, the gmon.out its runtime wrote, where they are."""

    dir: Path
    elf: Path
    gmon: Path


def _need(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (Debian: gcc-arm-none-eabi, qemu-system-arm)")


def _run(argv: list[str], cwd: Path) -> None:
    r = subprocess.run(argv, cwd=cwd, capture_output=True, timeout=300)
    assert r.returncode == 0, f"{' '.join(argv)}: {r.stderr.decode(errors='replace')}"


def build_firmware(
    where: Path, *, hz: int, bsd: bool = False, text: str = ".text", rounds: int = 2000
) -> Build:
    """Compile, link and run the firmware under qemu; its runtime writes gmon.out by semihosting."""
    _need(ARM.cc, QEMU)
    where.mkdir(parents=True)
    (where / "fw.ld").write_text((FIRMWARE / "fw.ld").read_text().replace("TEXT_SECTION", text))
    defs = ["-DCPU_HZ=25000000", f"-DPROF_HZ={hz}", *(["-DGMON_BSD"] if bsd else [])]
    objs = []
    for src, extra in (("fw_main.c", ["-pg", f"-DROUNDS={rounds}"]), ("gmon_rt.c", defs), ("startup.c", []),
                       ("mcount.S", [])):  # fmt: skip
        obj = src.split(".")[0] + ".o"
        _run([ARM.cc, *CFLAGS, *extra, "-c", str(FIRMWARE / src), "-o", obj], where)
        objs.append(obj)
    _run(
        [ARM.cc, *CFLAGS, "-nostdlib", "-nostartfiles", "-T", "fw.ld", "-o", "fw.elf", *objs, "-lgcc"], where
    )
    qemu = [QEMU, "-M", "mps2-an385", "-nographic", "-monitor", "none", "-serial", "none", "-icount", "shift=4",
            "-semihosting-config", "enable=on,target=native", "-kernel", "fw.elf"]  # fmt: skip
    subprocess.run(qemu, cwd=where, capture_output=True, timeout=300)  # exits with main's status
    assert (where / "gmon.out").exists(), "the firmware wrote no gmon.out"
    return Build(where, where / "fw.elf", where / "gmon.out")


@pytest.fixture(scope="session")
def firmware(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Build]]:
    """The builds, made once each when first asked for."""
    root = tmp_path_factory.mktemp("firmware")
    made: dict[str, Build] = {}

    class Lazy(dict[str, Build]):
        def __missing__(self, key: str) -> Build:
            spec = {
                "gnu-1k": {"hz": 1000},
                "gnu-10k": {"hz": 10000, "rounds": 600},
                "bsd-100": {"hz": 100, "bsd": True, "rounds": 12000},
                "flash-text": {"hz": 1000, "text": ".flash_text"},
            }[key]
            made[key] = build_firmware(root / key, **spec)  # type: ignore[arg-type]
            self[key] = made[key]
            return made[key]

    yield Lazy()


OPTIONS = {
    "default": (),
    "p": ("-p",),
    "q": ("-q",),
    "z": ("-z",),
    "l": ("-l",),
    "l-z": ("-l", "-z"),
    "A": ("-A",),
    "A-l": ("-A", "-l"),
    "C": ("-C",),
    "C-l-z": ("-C", "-l", "-z"),
    "c": ("-c",),
    "T": ("-T",),
    "T-l": ("-T", "-l"),
    "i": ("-i",),
    "r": ("-r",),
    "k": ("-k", "fact/leaf"),
}


@pytest.mark.parametrize("opt", list(OPTIONS))
@pytest.mark.parametrize("build", ["gnu-1k", "gnu-10k", "bsd-100"])
def test_firmware_matches_bare_metal_gprof(firmware: dict[str, Build], build: str, opt: str) -> None:
    b = firmware[build]
    expected, actual = compare_reports(ARM, [*OPTIONS[opt], str(b.elf), str(b.gmon)], b.dir)
    if opt == "c":  # no finder for ARM: both name BFD's architecture of a Cortex-M3
        assert "architecture armv7" in expected.err and actual.err.rstrip().endswith("architecture armv7")


def test_firmware_profile_covers_flash_and_ram_code(firmware: dict[str, Build]) -> None:
    """What the runtime wrote is what the test claims: two histograms (flash text and .iram), the
    hot routine in RAM sampled, at 1 kHz."""
    b = firmware["gnu-1k"]
    info = gprof(ARM, ["-i", str(b.elf), str(b.gmon)], b.dir).stdout.decode()
    assert "2 histogram records" in info
    flat = gprof(ARM, ["-b", "-p", str(b.elf), str(b.gmon)], b.dir).stdout.decode()
    assert "Each sample counts as 0.001 seconds." in flat
    hot = next(line for line in flat.splitlines() if line.endswith(" hot"))
    assert float(hot.split()[0]) > 20  # percent of the time, in RAM code


def test_firmware_sum_file(firmware: dict[str, Build], tmp_path: Path) -> None:
    b = firmware["gnu-1k"]
    outs = []
    for who in ("gprof", "gmonlens"):
        d = tmp_path / who
        d.mkdir()
        r = (
            gprof(ARM, ["-s", str(b.elf), str(b.gmon)], d)
            if who == "gprof"
            else gmonlens(["-s", str(b.elf), str(b.gmon)], d)
        )
        assert r.returncode == 0, r.err
        data = (d / "gmon.sum").read_bytes()
        outs.append(data[:8] + data[20:])  # 8..19: spare header bytes (test_targets.sum_file_bytes)
    assert outs[0] == outs[1]


@pytest.mark.parametrize("opt", ["default", "l", "A", "C", "T", "z"])
def test_text_section_named_otherwise(firmware: dict[str, Build], tmp_path: Path, opt: str) -> None:
    """gprof refuses a file without `.text` (`can't find .text section`); gmonlens reads it as
    gprof reads the copy a user renames with objcopy."""
    b = firmware["flash-text"]
    assert b"can't find .text section" in gprof(ARM, ["-b", str(b.elf), str(b.gmon)], b.dir).stderr
    renamed = b.dir / "fw-renamed.elf"
    if not renamed.exists():
        _run(
            ["arm-none-eabi-objcopy", "--rename-section", ".flash_text=.text", str(b.elf), str(renamed)],
            b.dir,
        )
    expected = gprof(ARM, ["-b", *OPTIONS[opt], str(renamed), str(b.gmon)], b.dir)
    actual = gmonlens(["-b", *OPTIONS[opt], str(b.elf), str(b.gmon)], b.dir)
    assert expected.returncode == 0 and actual.returncode == 0, actual.err
    assert actual.stdout == expected.stdout


def nuttx_transcript(data: bytes, chunk: int = 1024) -> str:
    """`hexdump /tmp/gmon.out` on a NuttX console, with the shell's lines around it."""
    out = ["nsh> gprof stop", "nsh> gprof dump /tmp/gmon.out", "nsh> hexdump /tmp/gmon.out"]
    for c in range(0, len(data), chunk):
        out.append(f"/tmp/gmon.out at {c:08x}:")
        for o in range(0, min(chunk, len(data) - c), 16):
            b = data[c + o : c + o + 16]
            text = "".join(chr(x) if 32 <= x < 127 else "." for x in b)
            out.append(f"{o:04x}: " + " ".join(f"{x:02x}" for x in b) + " " + text)
    return "\r\n".join([*out, "nsh> "]) + "\r\n"


@pytest.mark.parametrize("opt", ["default", "l", "C"])
def test_hexdump_transcript(firmware: dict[str, Build], opt: str) -> None:
    b = firmware["gnu-1k"]
    log = b.dir / "console.log"
    log.write_text(nuttx_transcript(b.gmon.read_bytes()))
    expected = gprof(ARM, ["-b", *OPTIONS[opt], str(b.elf), str(b.gmon)], b.dir)
    actual = gmonlens(["-b", *OPTIONS[opt], str(b.elf), "--hexdump", str(log)], b.dir)
    assert actual.returncode == 0, actual.err
    assert actual.stdout == expected.stdout


# -- RISC-V 32, bare metal: a helper mimics the runtime ---------------------------------------------

RV32_SOURCE = r"""
volatile unsigned sink;
void _mcount(void) {}
static __attribute__((noinline)) void leaf(unsigned n) { for (unsigned i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) unsigned fact(unsigned n) { leaf(50); return n <= 1 ? 1 : n * fact(n - 1); }
unsigned odd(unsigned n);
__attribute__((noinline)) unsigned even(unsigned n) { leaf(20); return n == 0 ? 1 : odd(n - 1); }
__attribute__((noinline)) unsigned odd(unsigned n) { return n == 0 ? 0 : even(n - 1); }
int main(void) { unsigned a = 0; for (int r = 0; r < 10; r++) a += fact(6) + even(8); return (int)a; }
void _start(void) { main(); for (;;) {} }
"""


def rv32_gmon(nm: dict[str, int], text: tuple[int, int], hz: int) -> bytes:
    """A GNU gmon.out as a bare-metal runtime would write it for RV32_SOURCE's run: 16-bit bins
    over .text (4 bytes a bin), samples inside each routine, arcs from a return address inside
    the caller to a pc just past the callee's entry."""
    low, high = text
    nbins = (high - low + 3) // 4
    counts = [0] * nbins
    for name, samples, at in (
        ("leaf", 40, 12),
        ("fact", 9, 20),
        ("even", 6, 16),
        ("odd", 3, 8),
        ("main", 2, 24),
    ):
        counts[(nm[name] + at - low) // 4] += samples
    calls = [("main", "fact", 10), ("fact", "fact", 50), ("fact", "leaf", 60), ("main", "even", 10),
             ("even", "odd", 40), ("odd", "even", 40), ("even", "leaf", 50), ("_start", "main", 1)]  # fmt: skip
    arcs = [Arc(nm[c] + 16, nm[e] + 8, n) for c, e, n in calls]
    return gnu_file([Hist(low, low + 4 * nbins, counts, prof_rate=hz), *arcs], address_size=4)


@pytest.fixture(scope="session")
def rv32(tmp_path_factory: pytest.TempPathFactory) -> Build:
    if shutil.which(RV32.cc) is None or shutil.which(RV32.gprof) is None:
        pytest.skip("riscv64-unknown-elf-gcc not installed (Debian: gcc-riscv64-unknown-elf)")
    d = tmp_path_factory.mktemp("rv32")
    (d / "prog.c").write_text(RV32_SOURCE)
    argv = [RV32.cc, "-march=rv32imac", "-mabi=ilp32", "-O1", "-g", "-ffreestanding", "-nostdlib",
            "-Wl,-Ttext=0x20010000", "-o", "prog", "prog.c"]  # fmt: skip
    _run(argv, d)
    out = subprocess.run(
        [RV32.gprof[:-5] + "nm", str(d / "prog")], capture_output=True, text=True, check=True
    )
    nm = {p[2]: int(p[0], 16) for p in (line.split() for line in out.stdout.splitlines()) if len(p) == 3}
    sec = subprocess.run(
        [RV32.gprof[:-5] + "readelf", "-SW", str(d / "prog")], capture_output=True, text=True
    )
    row = next(line.split() for line in sec.stdout.splitlines() if " .text " in line)
    start, size = int(row[row.index(".text") + 2], 16), int(row[row.index(".text") + 4], 16)
    (d / "gmon.out").write_bytes(rv32_gmon(nm, (start, start + size), 1000))
    return Build(d, d / "prog", d / "gmon.out")


@pytest.mark.parametrize("opt", ["default", "z", "l", "A", "C", "c", "T", "r"])
def test_rv32_bare_metal_matches_gprof(rv32: Build, opt: str) -> None:
    expected, actual = compare_reports(RV32, [*OPTIONS[opt], str(rv32.elf), str(rv32.gmon)], rv32.dir)
    if opt == "c":
        assert "architecture riscv:rv32" in expected.err and actual.err.rstrip().endswith("riscv:rv32")
