"""Everything a listing needs from the files, read once (an I/O module): the profile as `report`
computes it, BFD's line table and gprof -l's function names (both kept in the disk cache, keyed by
the binary's identity), the code, and the decoder. The command and the language server build
listings through it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import diskcache
from .disasm import Decoder, DisasmError, Listing, build_listing
from .disasm_lookup import TargetNames, find_routines, needs_files
from .elf import ElfImage
from .errors import GmonlensError, one_line
from .linetable import LineTable
from .model import HistogramRecord, Profile
from .options import AnalysisOptions
from .report_lines import FunctionNames

if TYPE_CHECKING:  # scopes imports pyelftools: only a listing without cached scopes needs it
    from .program import Program
    from .scopes import FunctionScopes

LINES_KIND, SCOPES_KIND = "linetable-bfd", "scopes-gprof"


def gprof_lines(image: ElfImage) -> tuple[LineTable, FunctionScopes] | None:
    """BFD's line table and gprof -l's innermost function names (`scopes.function_scopes` with
    ELF names), from the disk cache when the binary is unchanged; None without debug information.
    Raises GmonlensError naming the binary when its DWARF cannot be read."""
    if not image.has_debug_info:
        return None
    from .scopes import FunctionScopes

    key = diskcache.binary_key(image.path, image.build_id)
    table = diskcache.load(LINES_KIND, key, LineTable.from_plain)
    scopes = diskcache.load(SCOPES_KIND, key, FunctionScopes.from_plain)
    try:
        if table is None:
            table = LineTable.from_elf(image.path, bfd=True)
            plain = table.to_plain()
            if plain is not None:
                diskcache.store(LINES_KIND, key, plain)
        if scopes is None:
            from .dwarf import DwarfIndex
            from .scopes import elf_code_names, function_scopes

            scopes = function_scopes(DwarfIndex(image.path), elf_code_names(image.symbols))
            diskcache.store(SCOPES_KIND, key, (scopes.bounds, scopes.names))
    except GmonlensError:
        raise
    except Exception as e:  # malformed DWARF: pyelftools raises many types
        raise GmonlensError(image.path, f"cannot read DWARF line information ({one_line(e)})") from None
    return table, scopes


def has_listing_data(program: Program) -> bool:
    """Whether the disk cache holds what `gprof_lines` computes for this executable."""
    key = program.key
    return diskcache.exists(LINES_KIND, key) and diskcache.exists(SCOPES_KIND, key)


def warm_listing(program: Program) -> None:
    """Compute and store `gprof_lines` (the warm-up's work), unless cached."""
    if not has_listing_data(program):
        gprof_lines(program.image)


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
        profiles: Sequence[str],
        options: AnalysisOptions,
        symspec: str = "",
        syntax: str = "att",
    ) -> DisasmContext:
        """Read the files (`loader.load`, as `report` does: gprof's file names)."""
        from .loader import load

        loaded = load(binary, profiles, options, gprof_files=True, all_lines=needs_files(symspec))
        return cls.of(binary, loaded.image, loaded.profile, loaded.gmon.histograms, syntax)

    @classmethod
    def of(
        cls,
        binary: str,
        image: ElfImage,
        profile: Profile,
        histograms: Sequence[HistogramRecord],
        syntax: str = "att",
        lines: tuple[LineTable, FunctionScopes] | None = None,
    ) -> DisasmContext:
        """From what a caller has loaded already (`lines`: `gprof_lines(image)` when None)."""
        decoder = Decoder(image.machine, syntax)
        found = lines if lines is not None else gprof_lines(image)
        names = FunctionNames(found[1], image.symbols) if found else None
        targets = TargetNames(image.symbols, image.code_sections)
        table = found[0] if found else None
        return cls(binary, image, profile, histograms, decoder, table, names, targets, profile.problems)

    def find(self, symspec: str) -> list[int]:
        """Routine ids SYMSPEC names (`disasm_lookup.find_routines`); raises when none."""
        rids = find_routines(self.profile, symspec)
        if not rids:
            raise GmonlensError(self.binary, f"no routine matches '{symspec}'")
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
        from .demangle import demangle_all

        raw = sorted(
            {i.function for x in listings for i in x.instructions}
            | {n for x in listings for _, n in x.symbols}
        )
        shown, _problem = demangle_all(raw)
        table = dict(zip(raw, shown, strict=True))
        return lambda n: table.get(n, n)
