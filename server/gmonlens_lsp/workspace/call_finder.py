"""The engine's `CallFinder` (gmonlens.callsites), built from a binary's executable sections."""

from __future__ import annotations

from gmonlens.callsites import CallFinder as _EngineCallFinder


class CallFinder(_EngineCallFinder):
    @classmethod
    def from_elf(cls, path: str) -> CallFinder:
        """Read only what decoding needs: the machine, the address size and the code sections
        (through the engine's bounded reader, `gmonlens.sections`)."""
        from gmonlens.elf import machine_name
        from gmonlens.sections import ElfFile

        with ElfFile(path) as elf:
            sections = [
                (s.addr, elf.data(s))
                for s in elf.sections
                if s.flags & 0x4 and s.type == 1  # SHF_EXECINSTR, SHT_PROGBITS
            ]
            return cls(machine_name(elf.machine), 8 if elf.wide else 4, sections)
