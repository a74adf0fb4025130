"""Golden tests of every target gprof reads (issue 31), with no compiler and no gprof: for each
target of tests/golden_targets.py (ARM Thumb-2 and A32, AArch64, RISC-V 64 and 32, ppc64le,
big-endian ppc64 ELFv1 and ppc32, s390x, mips64el and mips, i386, bare-metal arm-none-eabi and
riscv64-unknown-elf) an ELF executable and a gmon.out built in Python, and `gmonlens report -b`
run in-process on them must print what that target's own gprof 2.40 printed for the same files
(tests/analysis/golden/targets/, recorded by tests/record_goldens.py); where gprof said something
on stderr (`-c not supported on architecture armv7`), gmonlens names the same architecture."""

from __future__ import annotations

from pathlib import Path

import pytest

from gmonlens.commands.dispatch import run
from golden_programs import Variant
from golden_targets import TARGETS, VARIANTS, Target, elf_bytes, gmon_bytes

GOLDEN = Path(__file__).resolve().parent / "golden" / "targets"

CASES = [pytest.param(t, v, id=f"{t.name}.{v.id}") for t in TARGETS for v in VARIANTS]


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GMONLENS_CACHE", "off")


@pytest.mark.parametrize(("target", "variant"), CASES)
def test_target_report_matches_its_gprof(
    target: Target,
    variant: Variant,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "a.out").write_bytes(elf_bytes(target))
    (tmp_path / "gmon.out").write_bytes(gmon_bytes(target))
    monkeypatch.chdir(tmp_path)
    status = run(["report", "-b", *variant.options, "a.out", "gmon.out"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert out == (GOLDEN / f"{target.name}.{variant.id}.txt").read_text()
    said = GOLDEN / f"{target.name}.{variant.id}.err"
    if said.exists() and "not supported on architecture" in said.read_text():
        arch = said.read_text().split("architecture ")[1].split()[0]
        assert err.rstrip().endswith(f"architecture {arch}"), err


def test_every_target_has_its_goldens() -> None:
    recorded = {p.name for p in GOLDEN.glob("*.txt")}
    assert recorded == {f"{t.name}.{v.id}.txt" for t in TARGETS for v in VARIANTS}
