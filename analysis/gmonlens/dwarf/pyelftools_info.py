"""pyelftools' DWARF reader over an `ElfFile`'s bounded sections (an I/O module).

pyelftools' own `ELFFile.get_dwarf_info` decompresses sections whole, builds a NOBITS section's
zeros and reads the file through its own stream; here the DWARF sections come from
`elffile.ElfFile` (headers-only reads, charged to the file's `Budget`, `.zdebug_*` read), and the
DWARF reader counts what it decodes: every DIE with its attributes ("DWARF entries") and every
string taken from `.debug_str`/`.debug_line_str` ("string bytes", each offset decoded once).
Exceeding a limit raises `budget.LimitError`. Relocations are not applied (executables need none).
"""

from __future__ import annotations

import io
from typing import Any

from elftools.dwarf.compileunit import CompileUnit
from elftools.dwarf.dwarfinfo import DebugSectionDescriptor, DwarfConfig, DWARFInfo

from gmonlens.binary.budget import Budget
from gmonlens.binary.elffile import SHT_NOBITS, ElfFile

_SECTIONS = (
    "info", "aranges", "abbrev", "frame", "str", "loc", "ranges", "line", "pubtypes", "pubnames",
    "addr", "str_offsets", "line_str", "loclists", "rnglists", "types",
)  # fmt: skip
_ARCH = {
    62: "x64",
    3: "x86",
    183: "AArch64",
    40: "ARM",
    8: "MIPS",
    20: "PowerPC",
    21: "PowerPC",
    243: "RISC-V",
}


def dwarf_info(elf: ElfFile) -> Any:
    """The DWARFInfo of `elf`, None without `.debug_info` (nor `.zdebug_info`). Section contents
    are read now (each charged to `image.budget`); DIEs as they are used."""
    if elf.find(".debug_info") is None:
        return None
    kwargs: dict[str, Any] = {}
    strings: dict[str, bytes] = {}
    for short in _SECTIONS:
        name = f".debug_{short}"
        sec = elf.find(name)
        desc = None
        if sec is not None and sec.type != SHT_NOBITS:  # a NOBITS section holds nothing: absent
            data = elf.data(sec)
            desc = DebugSectionDescriptor(io.BytesIO(data), name, None, len(data), 0)
            if short in ("str", "line_str"):
                strings[name] = data
        kwargs[f"debug_{short}_sec"] = desc
    config = DwarfConfig(
        little_endian=elf.little,
        default_address_size=8 if elf.wide else 4,
        machine_arch=_ARCH.get(elf.machine, ""),
    )
    info = _BoundedDWARFInfo(
        elf.budget,
        config=config,
        eh_frame_sec=None,
        debug_sup_sec=None,
        gnu_debugaltlink_sec=None,
        **kwargs,
    )
    info.string_sections = strings
    return info


class _BoundedDWARFInfo(DWARFInfo):
    """DWARFInfo whose units count the DIEs they decode and whose strings are read once each."""

    def __init__(self, budget: Budget, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.budget = budget
        self._strings: dict[tuple[str, int], bytes | None] = {}
        self.string_sections: dict[str, bytes] = {}

    def _parse_CU_at_offset(self, offset: int) -> Any:
        cu = super()._parse_CU_at_offset(offset)
        if type(cu) is CompileUnit:
            cu.__class__ = _BoundedUnit
        return cu

    def get_string_from_table(self, offset: int) -> bytes | None:
        return self._string(".debug_str", offset)

    def get_string_from_linetable(self, offset: int) -> bytes | None:
        return self._string(".debug_line_str", offset)

    def _string(self, section: str, offset: int) -> bytes | None:
        """The NUL-terminated string at `offset` of `section`, decoded once and charged once."""
        key = (section, offset)
        if key in self._strings:
            return self._strings[key]
        data = self.string_sections.get(section)
        value: bytes | None = None
        if data is not None and 0 <= offset < len(data):
            end = data.find(b"\0", offset)
            end = len(data) if end < 0 else end
            self.budget.charge("string bytes", end - offset, section)
            value = data[offset:end]
        self._strings[key] = value
        return value


class _BoundedUnit(CompileUnit):
    """A unit that charges each DIE it decodes (1 + its attributes) to the file's budget."""

    @property
    def _budget(self) -> Budget:
        info = self.dwarfinfo
        assert isinstance(info, _BoundedDWARFInfo)
        return info.budget

    def get_top_DIE(self) -> Any:
        fresh = not self._dielist
        die = super().get_top_DIE()
        if fresh:
            self._budget.charge("DWARF entries", 1 + len(die.attributes), ".debug_info")
        return die

    def _get_cached_DIE(self, offset: int) -> Any:
        before = len(self._dielist)
        die = super()._get_cached_DIE(offset)
        if len(self._dielist) > before:
            self._budget.charge("DWARF entries", 1 + len(die.attributes), ".debug_info")
        return die

    def iter_DIEs(self) -> Any:
        budget = self._budget
        seen = len(self._dielist)
        for die in super().iter_DIEs():
            if len(self._dielist) > seen:  # decoded now, not taken from the unit's cache
                seen = len(self._dielist)
                budget.charge("DWARF entries", 1 + len(die.attributes), ".debug_info")
            yield die
