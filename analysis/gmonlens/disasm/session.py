"""Everything a listing needs from the files, read once (an I/O module): the profile as `report`
computes it, BFD's line table and gprof -l's function names (both kept in the disk cache, keyed by
the binary's identity), the code, and the decoder. The command and the language server build
listings through it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gmonlens.binary.image import ElfImage
from gmonlens.common.errors import GmonlensError, one_line
from gmonlens.common.model import HistogramRecord, Profile
from gmonlens.common.options import AnalysisOptions
from gmonlens.disasm.listing import Decoder, DisasmError, Listing, build_listing
from gmonlens.disasm.lookup import TargetNames, find_routines, needs_files, no_match_message
from gmonlens.dwarf.line_table import LineTable
from gmonlens.load import diskcache
from gmonlens.profile.line_symbols import FunctionNames

if TYPE_CHECKING:  # scopes imports pyelftools: only a listing without cached scopes needs it
    from gmonlens.binary.address_names import AddressNames
    from gmonlens.dwarf.scopes import FunctionScopes
    from gmonlens.load.program import ProfileFiles, Program


def gprof_lines(program: Program) -> tuple[LineTable, FunctionScopes] | None:
    """BFD's line table and gprof -l's innermost function names (`Program.line_table(bfd=True)`,
    `Program.gprof_scopes()`: the disk cache when the binary is unchanged); None without debug
    information. Raises GmonlensError naming the binary when its DWARF cannot be read."""
    if not program.image.has_debug_info:
        return None
    try:
        return program.line_table(bfd=True), program.gprof_scopes()
    except GmonlensError:
        raise
    except Exception as e:  # malformed DWARF: pyelftools raises many types
        raise GmonlensError(program.path, f"cannot read DWARF line information ({one_line(e)})") from None


def has_listing_data(program: Program) -> bool:
    """Whether the disk cache holds what `gprof_lines` computes for this executable."""
    from gmonlens.load.program import LINETABLE_BFD_KIND, SCOPES_GPROF_KIND

    key = program.key
    return diskcache.exists(LINETABLE_BFD_KIND, key) and diskcache.exists(SCOPES_GPROF_KIND, key)


@dataclass
class DisasmContext:
    """A loaded profile and its binary, ready to list routines."""

    binary: str
    image: ElfImage
    profile: Profile
    histograms: Sequence[HistogramRecord]
    decoder: Decoder
    lines: LineTable | None
    names: FunctionNames | None
    target_names: TargetNames
    problems: Sequence[str] = ()

    @classmethod
    def open(
        cls,
        binary: str,
        profiles: Sequence[str] | ProfileFiles,
        options: AnalysisOptions,
        symspec: str = "",
        syntax: str = "att",
    ) -> DisasmContext:
        """Read the files (`loader.load`, as `report` does: gprof's file names)."""
        from gmonlens.load.loader import load

        loaded = load(binary, profiles, options, gprof_files=True, all_lines=needs_files(symspec))
        found = gprof_lines(loaded.program)
        names = loaded.program.address_names()
        return cls.of(binary, loaded.image, loaded.profile, loaded.gmon.histograms, syntax, found, names)

    @classmethod
    def of(
        cls,
        binary: str,
        image: ElfImage,
        profile: Profile,
        histograms: Sequence[HistogramRecord],
        syntax: str = "att",
        lines: tuple[LineTable, FunctionScopes] | None = None,
        address_names: AddressNames | None = None,
    ) -> DisasmContext:
        """From what a caller has loaded already (`lines`: `gprof_lines` of its Program;
        `address_names`: its `address_names()`, objdump's names of PLT entries, GOT slots and
        data; without them targets are named by code symbols alone)."""
        decoder = Decoder(
            image.machine,
            syntax,
            wide=image.address_size == 8,
            little=image.little_endian,
            mapping=image.arm_mapping,
        )
        found = lines
        names = FunctionNames(found[1], image.naming_symbols) if found else None
        targets = TargetNames(image.symbols, image.code_sections, address_names)
        table = found[0] if found else None
        return cls(binary, image, profile, histograms, decoder, table, names, targets, profile.problems)

    def find(self, symspec: str) -> list[int]:
        """Routine ids SYMSPEC names (`lookup.find_routines`); raises when none."""
        rids = find_routines(self.profile, symspec)
        if not rids:
            raise GmonlensError(self.binary, no_match_message(self.profile, symspec))
        return rids

    def listing(self, rid: int) -> Listing:
        """The listing of routine `rid`; DisasmError names a routine without code."""
        r = self.profile.routines[rid]
        if r.end_address < r.address:
            raise DisasmError(self.binary, f"{r.display_name}: no code (an empty range)")
        try:
            return build_listing(
                self.profile,
                self.histograms,
                rid,
                self.image.code_sections,
                self.decoder,
                self.lines,
                self.names,
                self.target_names.inside(r.address + 1, r.end_address + 1),
                2 * self.image.address_size,
            )
        except DisasmError as e:
            raise DisasmError(self.binary, e.message) from None

    def display_names(self, listings: Sequence[Listing]) -> Callable[[str], str]:
        """Printed names (demangled as gprof demangles) of the functions the listings name."""
        from gmonlens.common.demangle import demangle_all

        raw = sorted(
            {i.function for x in listings for i in x.instructions}
            | {n for x in listings for _, n in x.symbols}
        )
        shown, _problem = demangle_all(raw)
        table = dict(zip(raw, shown, strict=True))
        return lambda n: table.get(n, n)
