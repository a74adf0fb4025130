"""The name GNU objdump -d gives an address (`<name+0xoff>` after a branch target, in the
`# ADDR <name>` comment of an x86-64 RIP-relative operand, after an AArch64 `adrp`).

Rules taken from objdump 2.40's output (all 88,000 labels of six x86-64 programs agree: SQLite
-O2, C and C++ -O2 PIE and non-PIE, -fno-plt, and a static glibc program with its many aliases;
tests/integration/test_disasm_names.py holds the check):
- An address that a dynamic relocation writes (a GOT slot: R_X86_64_GLOB_DAT, JUMP_SLOT, 64, ...)
  is named by the relocation's symbol with its version, `mcount@GLIBC_2.2.5` (`@Base` for an
  unversioned global one, `_ITM_deregisterTMCloneTable@Base`); only that exact address.
- Otherwise the nearest symbol at or below it, `name` or `name+0xoff`: the `.symtab` symbols that
  are defined (section and file symbols, and AArch64/ARM mapping symbols `$x`, `$d`, left out),
  and one `name@plt` for each PLT entry whose GOT slot a dynamic relocation with a symbol writes
  (the entry's first byte; BFD's synthetic symbols: .plt, .plt.sec, .plt.got on x86-64 and
  i386, .plt on AArch64; `*ABS*+0xADDEND@plt` for an IRELATIVE slot; none in a static program).
- Several symbols at that address: functions and objects before TLS before untyped ones before
  the rest (an IFUNC resolver's `memcpy` loses to its local `__new_memcpy_ifunc`), global before
  weak before local, the larger size first, then the smaller name (byte order).
"""

from __future__ import annotations

import struct
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gmonlens.binary.elffile import ElfFile, Section

SHT_SYMTAB, SHT_RELA, SHT_DYNAMIC, SHT_REL, SHT_DYNSYM = 2, 4, 6, 9, 11
SHT_GNU_VERDEF, SHT_GNU_VERNEED, SHT_GNU_VERSYM = 0x6FFFFFFD, 0x6FFFFFFE, 0x6FFFFFFF
SHF_ALLOC = 0x2
STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_SECTION, STT_FILE, STT_TLS, STT_GNU_IFUNC = 0, 1, 2, 3, 4, 6, 10
STB_LOCAL, STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE = 0, 1, 2, 10
EM_386, EM_X86_64, EM_AARCH64 = 3, 62, 183
_TYPE_RANK = {STT_FUNC: 0, STT_OBJECT: 0, STT_TLS: 1, STT_NOTYPE: 2}  # others (IFUNC) last
_BIND_RANK = {STB_GLOBAL: 0, STB_GNU_UNIQUE: 0, STB_WEAK: 1, STB_LOCAL: 2}
_IRELATIVE = {EM_X86_64: 37, EM_386: 42, EM_AARCH64: 1032}
_PLT_SECTIONS = frozenset({".plt", ".plt.sec", ".plt.got", ".plt.bnd", ".iplt"})
MAX_NAMED = 1 << 22  # symbols and relocations read at most (a budget; the rest are not named)


@dataclass(frozen=True, slots=True)
class Named:
    """One candidate name: the address, the name, objdump's preference among names at one
    address (lower first: type, binding, minus the size, then the name)."""

    address: int
    name: str
    rank: tuple[int, int, int]


@dataclass(frozen=True)
class AddressNames:
    """objdump's name of any address (module docstring). Pure once built."""

    addresses: tuple[int, ...]  # ascending
    names: tuple[str, ...]  # the preferred name at each address
    exact: dict[int, str]  # dynamically relocated addresses: the relocation's symbol@version

    @classmethod
    def of(cls, candidates: Iterable[Named], exact: dict[int, str] | None = None) -> AddressNames:
        best: dict[int, Named] = {}
        for c in candidates:
            held = best.get(c.address)
            if held is None or (c.rank, c.name.encode("utf-8", "surrogateescape")) < (
                held.rank,
                held.name.encode("utf-8", "surrogateescape"),
            ):
                best[c.address] = c
        addresses = tuple(sorted(best))
        return cls(addresses, tuple(best[a].name for a in addresses), dict(exact or {}))

    def __call__(self, address: int) -> str | None:
        """`name` or `name+0xoff` for `address`; None before every symbol."""
        hit = self.exact.get(address)
        if hit is not None:
            return hit
        k = bisect_right(self.addresses, address) - 1
        if k < 0:
            return None
        off = address - self.addresses[k]
        return self.names[k] if off == 0 else f"{self.names[k]}+0x{off:x}"


def read_address_names(elf: ElfFile) -> AddressNames:
    """The names of `elf`'s addresses (reads .symtab, .dynsym, the version sections, the
    dynamic relocations and the PLT sections); raises ElfError/LimitError as ElfFile does."""
    sections = elf.sections
    e = "<" if elf.little else ">"
    symtab = next((s for s in sections if s.type == SHT_SYMTAB), None)
    candidates: list[Named] = []
    if symtab is not None and symtab.link < len(sections):
        candidates += _static_names(elf, symtab, sections[symtab.link], e)
    exact: dict[int, str] = {}
    slots: dict[int, str] = {}
    dynamic = any(s.type == SHT_DYNAMIC for s in sections)
    for sec in sections:
        if sec.type in (SHT_RELA, SHT_REL) and sec.flags & SHF_ALLOC and dynamic:
            _relocations(elf, sec, e, exact, slots)
    if slots:
        candidates += plt_names(elf.machine, _plt_sections(elf), slots, _got_base(sections))
    return AddressNames.of(candidates, exact)


def _static_names(elf: ElfFile, symtab: Section, strtab: Section, e: str) -> list[Named]:
    raw, strs = elf.data(symtab), elf.data(strtab)
    fmt, size = (e + "IBBHQQ", 24) if elf.wide else (e + "IIIBBH", 16)
    out: list[Named] = []
    names: dict[int, str] = {}
    usable = min(len(raw) - len(raw) % size, MAX_NAMED * size)
    for i, rec in enumerate(struct.iter_unpack(fmt, raw[:usable])):
        if elf.wide:
            st_name, info, _other, shndx, value, st_size = rec
        else:
            st_name, value, st_size, info, _other, shndx = rec
        typ, bind = info & 0xF, info >> 4
        if i == 0 or shndx == 0 or typ in (STT_SECTION, STT_FILE):
            continue
        name = names.get(st_name)
        if name is None:
            name = names[st_name] = _string(strs, st_name, elf)
        if not name or _mapping_symbol(name):
            continue
        rank = (_TYPE_RANK.get(typ, 3), _BIND_RANK.get(bind, 3), -st_size)
        out.append(Named(value, name, rank))
    return out


def _mapping_symbol(name: str) -> bool:
    """AArch64/ARM mapping symbols (`$x`, `$d`, `$a`, `$t`, `$x.N`), which objdump never names."""
    return name[0] == "$" and len(name) >= 2 and name[1] in "xdat" and (len(name) == 2 or name[2] == ".")


def _string(strs: bytes, offset: int, elf: ElfFile) -> str:
    end = strs.find(b"\0", offset)
    stop = end if end >= 0 else len(strs)
    elf.budget.charge("string bytes", max(0, stop - offset), "string table")
    return strs[offset:stop].decode("utf-8", "surrogateescape")


def _relocations(elf: ElfFile, sec: Section, e: str, exact: dict[int, str], slots: dict[int, str]) -> None:
    """The relocations of one dynamic relocation section: `exact` gets symbol@version at each
    relocated address, `slots` the PLT name (without version) of each slot."""
    sections = elf.sections
    if not 0 < sec.link < len(sections) or sections[sec.link].type != SHT_DYNSYM:
        return
    dynsym = sections[sec.link]
    symbols = _DynamicSymbols(elf, dynsym, e)
    rela = sec.type == SHT_RELA
    if elf.wide:
        fmt, size = (e + "QQq", 24) if rela else (e + "QQ", 16)
    else:
        fmt, size = (e + "IIi", 12) if rela else (e + "II", 8)
    raw = elf.data(sec)
    usable = min(len(raw) - len(raw) % size, MAX_NAMED * size)
    irelative = _IRELATIVE.get(elf.machine)
    for rec in struct.iter_unpack(fmt, raw[:usable]):
        offset, info = rec[0], rec[1]
        index, kind = (info >> 32, info & 0xFFFFFFFF) if elf.wide else (info >> 8, info & 0xFF)
        if index:
            plain, versioned = symbols.name(index)
            if plain:
                exact[offset] = versioned
                slots.setdefault(offset, plain)
        elif kind == irelative and rela:
            slots.setdefault(offset, f"*ABS*+0x{rec[2] & ((1 << (64 if elf.wide else 32)) - 1):x}")


class _DynamicSymbols:
    """`.dynsym` names with their versions (`.gnu.version`, `.gnu.version_r`, `.gnu.version_d`)."""

    def __init__(self, elf: ElfFile, dynsym: Section, e: str) -> None:
        sections = elf.sections
        self.elf, self.e = elf, e
        self.raw = elf.data(dynsym)
        self.strs = elf.data(sections[dynsym.link]) if 0 < dynsym.link < len(sections) else b""
        self.entsize = 24 if elf.wide else 16
        versym = next((s for s in sections if s.type == SHT_GNU_VERSYM), None)
        self.versym = elf.data(versym) if versym is not None else b""
        self.versions: dict[int, str] = {}
        for s in sections:
            if s.type in (SHT_GNU_VERNEED, SHT_GNU_VERDEF) and 0 < s.link < len(sections):
                self._version_names(elf.data(s), elf.data(sections[s.link]), s.type == SHT_GNU_VERNEED)
        self.memo: dict[int, tuple[str, str]] = {}

    def _version_names(self, data: bytes, strs: bytes, need: bool) -> None:
        """Version index -> name from a version-needed or version-definition section."""
        e, at, seen = self.e, 0, 0
        while at + 16 <= len(data) and seen < 4096:
            seen += 1
            if need:  # vn_version vn_cnt vn_file vn_aux vn_next
                _v, count, _file, aux, nxt = struct.unpack_from(e + "HHIII", data, at)
                a = at + aux
                for _ in range(min(count, 4096)):
                    if a + 16 > len(data):
                        break
                    _hash, _flags, other, name, anext = struct.unpack_from(e + "IHHII", data, a)
                    self.versions[other & 0x7FFF] = _cstr(strs, name)
                    if not anext:
                        break
                    a += anext
            else:  # vd_version vd_flags vd_ndx vd_cnt vd_hash vd_aux vd_next
                _v, _flags, ndx, count, _hash, aux, nxt = struct.unpack_from(e + "HHHHIII", data, at)
                if count and at + aux + 8 <= len(data):
                    self.versions[ndx & 0x7FFF] = _cstr(strs, struct.unpack_from(e + "I", data, at + aux)[0])
            if not nxt:
                break
            at += nxt

    def name(self, index: int) -> tuple[str, str]:
        """(name, name@version) of dynamic symbol `index` ("" when out of the table)."""
        hit = self.memo.get(index)
        if hit is not None:
            return hit
        at = index * self.entsize
        if at + self.entsize > len(self.raw):
            return "", ""
        st_name = struct.unpack_from(self.e + "I", self.raw, at)[0]
        plain = _cstr(self.strs, st_name)
        version = ""
        if 2 * index + 2 <= len(self.versym):
            v = struct.unpack_from(self.e + "H", self.versym, 2 * index)[0] & 0x7FFF
            version = "Base" if v == 1 else self.versions.get(v, "") if v > 1 else ""
        out = (plain, f"{plain}@{version}" if version else plain)
        self.memo[index] = out
        return out


def _cstr(strs: bytes, offset: int) -> str:
    if offset >= len(strs):
        return ""
    end = strs.find(b"\0", offset)
    return strs[offset : end if end >= 0 else len(strs)].decode("utf-8", "surrogateescape")


def _plt_sections(elf: ElfFile) -> list[tuple[str, int, bytes]]:
    return [(s.name, s.addr, elf.data(s)) for s in elf.sections if s.name in _PLT_SECTIONS and s.addr]


def _got_base(sections: Sequence[Section]) -> int | None:
    """i386's PIC PLT addresses its slots from %ebx = the start of .got.plt (else .got)."""
    for name in (".got.plt", ".got"):
        hit = next((s for s in sections if s.name == name), None)
        if hit is not None:
            return hit.addr
    return None


def plt_names(
    machine: int, plts: Sequence[tuple[str, int, bytes]], slots: dict[int, str], got: int | None = None
) -> list[Named]:
    """`name@plt` at the first byte of each PLT entry whose indirect jump reads a slot of
    `slots` (GOT address -> name): x86-64 `jmp *disp(%rip)`, i386 `jmp *ABS` and
    `jmp *disp(%ebx)` (from `got`), AArch64 `adrp x16; ldr x17, [x16, #off]`; an entry's
    endbr64/endbr32/`bti c` is its first instruction."""
    out: list[Named] = []
    for _name, base, data in plts:
        found = _aarch64_plt(base, data) if machine == EM_AARCH64 else _x86_plt(machine, base, data, got)
        for start, slot in found:
            name = slots.get(slot)
            if name is not None:
                out.append(Named(start, f"{name}@plt", (0, 0, 0)))
    return out


_ENDBR = (b"\xf3\x0f\x1e\xfa", b"\xf3\x0f\x1e\xfb")


def _x86_plt(machine: int, base: int, data: bytes, got: int | None) -> list[tuple[int, int]]:
    """(entry start, GOT slot) of each `jmp *slot` in an x86 PLT section."""
    out: list[tuple[int, int]] = []
    i = data.find(b"\xff", 0)
    while i >= 0 and i + 6 <= len(data):
        op = data[i + 1]
        slot = None
        disp = struct.unpack_from("<i", data, i + 2)[0]
        if op == 0x25:  # jmp *disp32(%rip) on x86-64, jmp *abs32 on i386
            slot = base + i + 6 + disp if machine == EM_X86_64 else disp & 0xFFFFFFFF
        elif op == 0xA3 and machine == EM_386 and got is not None:  # jmp *disp32(%ebx)
            slot = (got + disp) & 0xFFFFFFFF
        if slot is None:
            i = data.find(b"\xff", i + 1)
            continue
        start = i - 1 if i and data[i - 1] == 0xF2 else i  # bnd jmp
        if start >= 4 and data[start - 4 : start] in _ENDBR:
            start -= 4
        out.append((base + start, slot))
        i = data.find(b"\xff", i + 6)
    return out


def _aarch64_plt(base: int, data: bytes) -> list[tuple[int, int]]:
    """(entry start, GOT slot) of each `adrp x16, PAGE; ldr x17, [x16, #OFF]` in an AArch64 PLT."""
    out: list[tuple[int, int]] = []
    words = struct.unpack_from(f"<{len(data) // 4}I", data)
    for k in range(len(words) - 1):
        adrp, ldr = words[k], words[k + 1]
        if adrp & 0x9F00001F != 0x90000010 or ldr & 0xFFC003FF != 0xF9400211:
            continue
        imm = ((adrp >> 29) & 3) | (((adrp >> 5) & 0x7FFFF) << 2)
        if imm & (1 << 20):
            imm -= 1 << 21
        pc = base + 4 * k
        slot = (pc & ~0xFFF) + (imm << 12) + ((ldr >> 10) & 0xFFF) * 8
        start = pc - 4 if k and words[k - 1] == 0xD503245F else pc  # bti c
        out.append((start, slot))
    return out
