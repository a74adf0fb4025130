"""The architecture name BFD prints for an executable (`bfd_printable_name`: `armv7`, `s390:64-bit`,
`riscv:rv64`, `powerpc:common64`), which gprof names in `-c not supported on architecture X`.

Pure: the ELF header's machine, class and flags and, on 32-bit ARM, the `.ARM.attributes` section's
bytes in. Each name was read off the target's own gprof 2.40 (Debian's binutils-<target>) on an
executable of that kind: the ARM ones on arm-none-eabi-gcc builds for every `-march`/`-mcpu` it
offers (Tag_CPU_arch decides; an executable without attributes reads as `armv3m`).
"""

from __future__ import annotations

from typing import Literal

Order = Literal["little", "big"]

EM_386, EM_MIPS, EM_PPC, EM_PPC64, EM_S390, EM_ARM = 3, 8, 20, 21, 22, 40
EM_X86_64, EM_AARCH64, EM_RISCV = 62, 183, 243

# Tag_CPU_arch (ARM IHI 0045, "Addenda to the ARM ELF ABI") -> BFD's name
_ARM_ARCH = {
    1: "armv4", 2: "armv4t", 3: "armv5t", 4: "armv5te", 5: "armv5tej", 6: "armv6", 7: "armv6kz",
    8: "armv6t2", 9: "armv6k", 10: "armv7", 11: "armv6-m", 12: "armv6s-m", 13: "armv7e-m",
    14: "armv8-a", 15: "armv8-r", 16: "armv8-m.base", 17: "armv8-m.main", 19: "armv8.1-m.main",
    21: "armv9-a",
}  # fmt: skip
_ARM_NO_ATTRIBUTES = "armv3m"
TAG_FILE, TAG_CPU_ARCH, TAG_COMPATIBILITY = 1, 6, 32
_ARM_STRING_TAGS = frozenset({4, 5, 67})  # Tag_CPU_raw_name, Tag_CPU_name, Tag_conformance


def bfd_arch_name(machine: int, wide: bool, arm_attributes: bytes | None = None, little: bool = True) -> str:
    """BFD's printable architecture name of an executable with e_machine `machine`, ELFCLASS64 when
    `wide`; `arm_attributes`: the contents of `.ARM.attributes` (None: no such section)."""
    if machine == EM_ARM:
        arch = arm_cpu_arch(arm_attributes, little) if arm_attributes is not None else None
        return _ARM_ARCH.get(arch, _ARM_NO_ATTRIBUTES) if arch is not None else _ARM_NO_ATTRIBUTES
    named = {
        EM_386: "i386",
        EM_X86_64: "i386:x86-64",
        EM_AARCH64: "aarch64",
        EM_PPC: "powerpc:common",
        EM_PPC64: "powerpc:common64",
        EM_S390: "s390:64-bit" if wide else "s390:31-bit",
        EM_RISCV: "riscv:rv64" if wide else "riscv:rv32",
        EM_MIPS: "mips",
    }
    return named.get(machine, f"machine {machine}")


def _uleb(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while pos < len(data):
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80 or shift > 63:
            break
    return value, pos


def _skip_string(data: bytes, pos: int) -> int:
    end = data.find(b"\0", pos)
    return len(data) if end < 0 else end + 1


def arm_cpu_arch(data: bytes, little: bool = True) -> int | None:
    """Tag_CPU_arch of the file-scope `aeabi` attributes in a `.ARM.attributes` section's bytes
    (format version 'A', subsections of vendor attributes), None when absent or malformed."""
    if not data or data[0] != 0x41:
        return None
    order: Order = "little" if little else "big"
    pos = 1
    while pos + 4 <= len(data):
        length = int.from_bytes(data[pos : pos + 4], order)
        if length < 5 or pos + length > len(data):
            return None
        end = pos + length
        vendor_end = data.find(b"\0", pos + 4, end)
        if vendor_end >= 0 and data[pos + 4 : vendor_end] == b"aeabi":
            found = _file_scope_arch(data, vendor_end + 1, end, order)
            if found is not None:
                return found
        pos = end
    return None


def _file_scope_arch(data: bytes, pos: int, end: int, order: Order) -> int | None:
    while pos + 5 <= end:
        tag = data[pos]
        size = int.from_bytes(data[pos + 1 : pos + 5], order)
        if size < 5 or pos + size > end:
            return None
        if tag == TAG_FILE:
            q, stop = pos + 5, pos + size
            while q < stop:
                attr, q = _uleb(data, q)
                if attr == TAG_CPU_ARCH:
                    return _uleb(data, q)[0]
                if attr == TAG_COMPATIBILITY:
                    q = _skip_string(data, _uleb(data, q)[1])
                elif attr in _ARM_STRING_TAGS or (attr > 32 and attr % 2 == 1):
                    q = _skip_string(data, q)
                else:
                    q = _uleb(data, q)[1]
        pos += size
    return None
