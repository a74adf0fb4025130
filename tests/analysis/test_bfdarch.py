"""BFD's architecture names (binary/bfdarch.py), as the targets' gprof 2.40 print them in
`-c not supported on architecture X`, and the `.ARM.attributes` reader behind the ARM ones."""

from __future__ import annotations

import struct

import pytest

from gmonlens.binary.bfdarch import arm_cpu_arch, bfd_arch_name


def attributes(arch: int | None, little: bool = True, extra: bytes = b"") -> bytes:
    """A `.ARM.attributes` section: format 'A', one `aeabi` subsection with a file-scope block
    holding Tag_CPU_name (a string), `extra`, then Tag_CPU_arch (when given) and Tag_ARM_ISA_use."""
    body = b"\x05" + b"7-A\0" + extra + (bytes([6, arch]) if arch is not None else b"") + b"\x08\x01"
    e = "<" if little else ">"
    block = b"\x01" + struct.pack(e + "I", 5 + len(body)) + body
    sub = b"aeabi\0" + block
    return b"A" + struct.pack(e + "I", 4 + len(sub)) + sub


@pytest.mark.parametrize(
    ("arch", "name"),
    [(2, "armv4t"), (4, "armv5te"), (10, "armv7"), (12, "armv6s-m"), (13, "armv7e-m"), (14, "armv8-a"),
     (17, "armv8-m.main"), (19, "armv8.1-m.main"), (21, "armv9-a")],
)  # fmt: skip
def test_arm_names_follow_tag_cpu_arch(arch: int, name: str) -> None:
    assert bfd_arch_name(40, False, attributes(arch)) == name
    assert bfd_arch_name(40, False, attributes(arch, little=False), little=False) == name


def test_arm_without_attributes_reads_as_armv3m() -> None:
    assert bfd_arch_name(40, False, None) == "armv3m"
    assert bfd_arch_name(40, False, attributes(None)) == "armv3m"
    assert bfd_arch_name(40, False, b"B\0\0\0\0") == "armv3m"  # another format version


def test_string_and_compatibility_tags_are_skipped() -> None:
    # Tag_compatibility (32): ULEB then a string; Tag_also_compatible_with (65): a string
    extra = bytes([32, 1]) + b"gnu\0" + bytes([65]) + b"\x06\x0a\0"
    assert arm_cpu_arch(attributes(13, extra=extra)) == 13


def test_malformed_attributes_give_none() -> None:
    good = attributes(10)
    for cut in range(len(good)):
        assert arm_cpu_arch(good[:cut]) in (None, 10)
    assert arm_cpu_arch(b"A\xff\xff\xff\xff") is None


@pytest.mark.parametrize(
    ("machine", "wide", "name"),
    [(243, True, "riscv:rv64"), (243, False, "riscv:rv32"), (22, True, "s390:64-bit"),
     (22, False, "s390:31-bit"), (20, False, "powerpc:common"), (21, True, "powerpc:common64")],
)  # fmt: skip
def test_other_names(machine: int, wide: bool, name: str) -> None:
    assert bfd_arch_name(machine, wide) == name
