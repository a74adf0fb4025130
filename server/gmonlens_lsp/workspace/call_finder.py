"""The engine's `CallFinder` (gmonlens.callsites), built from a binary's executable sections."""

from __future__ import annotations

from gmonlens.callsites import CallFinder as _EngineCallFinder


class CallFinder(_EngineCallFinder):
    @classmethod
    def from_elf(cls, path: str) -> CallFinder:
        """Read only what decoding needs: the machine, the address size and the code sections."""
        from elftools.elf.constants import SH_FLAGS
        from elftools.elf.elffile import ELFFile

        with open(path, "rb") as f:
            elf = ELFFile(f)
            sections = [
                (int(s["sh_addr"]), s.data())
                for s in elf.iter_sections()
                if s["sh_flags"] & SH_FLAGS.SHF_EXECINSTR and s["sh_type"] == "SHT_PROGBITS"
            ]
            return cls(str(elf["e_machine"]), elf.elfclass // 8, sections)
