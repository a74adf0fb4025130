"""Files -> Profile: the engine's entry point for the CLI and the server (it reads through
`program.Program`, which opens the files)."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from gmonlens.binary.image import ElfImage
from gmonlens.common.demangle import demangle_all
from gmonlens.common.errors import GmonlensError, reason
from gmonlens.common.model import GmonData, Profile, Symbol
from gmonlens.common.options import AnalysisOptions, resolve_tables
from gmonlens.common.source_files import gprof_file_list
from gmonlens.load import diskcache
from gmonlens.load.program import (
    LINES_BFD_KIND,
    LINES_BFD_STATIC_KIND,
    LINES_KIND,
    LINES_STATIC_KIND,
    MAX_PROFILE_BYTES,
    ProfileFiles,
    Program,
    read_profile_bytes,
)
from gmonlens.profile.callgraph import compute_profile
from gmonlens.profile.clones import folded_symbols
from gmonlens.profile.file_order import ObjectMap, mapped_symbols
from gmonlens.profile.fit import Fit, profile_fit, rate_warnings
from gmonlens.profile.symbols import SymbolTable, build_symbol_table

__all__ = [
    "LINES_BFD_KIND",
    "LINES_BFD_STATIC_KIND",
    "LINES_KIND",
    "LINES_STATIC_KIND",
    "MAX_PROFILE_BYTES",
    "Loaded",
    "Program",
    "attach_lines",
    "fit_problems",
    "load",
    "load_profile",
    "read_profile_bytes",
]


def fit_problems(
    image: ElfImage, symtab: SymbolTable, data: GmonData, paths: Sequence[str], known: Fit | None = None
) -> list[str]:
    """The engine's fit rule (gmonlens.profile.fit): raise when the profile plainly is not the binary's,
    return the warnings when it fits only loosely. gprof prints an empty report instead. `known`
    is the rule's verdict on these same inputs when already had (`Program.fit`)."""
    label = ", ".join(paths)
    fit = known if known is not None else profile_fit(image, symtab, data, label)
    if fit.errors:
        raise GmonlensError(label, fit.errors[0])
    return [*fit.warnings, *rate_warnings(data, label)]


def _static_calls_entry(value: object) -> list[tuple[int, int]]:
    """Cached static arcs, shape-checked ([(caller address, callee address)])."""
    diskcache.expect(isinstance(value, list) and diskcache.only(value, tuple))
    assert isinstance(value, list)
    diskcache.expect(all(len(v) == 2 for v in value) and diskcache.only([x for v in value for x in v], int))
    return value


def attach_lines(symtab: SymbolTable, lines: dict[int, tuple[str, int]], all_symbols: bool) -> SymbolTable:
    """Give routines their source file and line (static ones only unless `all_symbols`)."""
    syms: list[Symbol] = []
    for s in symtab.symbols:
        hit = lines.get(s.address) if (all_symbols or s.is_static) else None
        syms.append(replace(s, file=hit[0], line=hit[1]) if hit else s)
    return SymbolTable(tuple(syms), symtab.addresses)


def _line_symbols(
    program: Program, symtab: SymbolTable, code_end: int, problems: list[str], gprof_files: bool
) -> SymbolTable:
    """-l: the routines plus gprof's line symbols (report_lines.py), files named as `load` says."""
    from gmonlens.profile.line_symbols import with_line_symbols

    try:
        table = program.line_table(bfd=gprof_files)
        scopes = program.gprof_scopes()
    except Exception as e:  # a broken DWARF section must not stop the report
        problems.append(f"{program.path}: cannot read DWARF line information ({reason(e)}); no line symbols")
        return symtab
    image = program.image
    text = (image.text_start, image.text_end)
    return with_line_symbols(symtab, table, scopes, image.naming_symbols, code_end, text)


@dataclass(frozen=True)
class Loaded:
    """A computed profile with the inputs it came from (`gmon`: the summed records, samples
    included, which line heat and gmon.sum use; `program`: what else of the files is asked)."""

    image: ElfImage
    gmon: GmonData
    profile: Profile
    program: Program
    file_symbols: dict[int, int] = field(default_factory=dict)  # -R: address -> map entry (fileorder.py)


def load_profile(
    binary: str | Program,
    profiles: Sequence[str] | ProfileFiles = (),
    options: AnalysisOptions | None = None,
    *,
    gprof_files: bool = False,
    all_lines: bool = False,
) -> Profile:
    """Read the binary and its profile files and compute gprof's figures.

    Raises GmonlensError (one line naming the file) for input gprof refuses or that cannot be the
    program's profile; warnings land in `Profile.problems`.
    """
    return load(binary, profiles, options, gprof_files=gprof_files, all_lines=all_lines).profile


def load(
    binary: str | Program,
    profiles: Sequence[str] | ProfileFiles = (),
    options: AnalysisOptions | None = None,
    *,
    gprof_files: bool = False,
    all_lines: bool = False,
    file_map: ObjectMap | None = None,
) -> Loaded:
    """`load_profile`, keeping the ELF image, the summed gmon data and the `Program`.

    `binary` is a path (read with `profiles`) or a `Program` (its profiles; `profiles` unused),
    whose files are then read no more than it has already. A Program made here lets go of the
    executable's bytes before the arithmetic (`Program.release_bytes`: the CLI's peak memory). Routines get a source file and line
    when gprof needs one (static routines, file symspecs) or `all_lines` asks for every routine.
    `gprof_files=True` takes gprof's file for a routine (what its report labels and file symspecs
    use); the default, the true position (what editors show). `file_map` (-R's map) renames and
    drops the mapped routines as gprof's sections show them (`file_order.mapped_symbols`).
    """
    program = Program(binary, profiles) if isinstance(binary, str) else binary
    own = program is not binary
    opts = options or AnalysisOptions()
    image = program.image
    symtab = _symbol_table(program, opts)
    data = program.gmon(opts.profile_format)
    # with gprof's default symbols the fit is the Program's (discovery may have checked it)
    known = program.fit(opts.profile_format) if symtab is program.symtab else None
    problems = fit_problems(image, symtab, data, program.profiles.paths, known)
    file_symbols: dict[int, int] = {}
    if file_map is not None and opts.symbol_file is None:  # gprof maps only the binary's symbols
        mapped = mapped_symbols(symtab, file_map)
        symtab, file_symbols = mapped.symtab, mapped.entry_at
    symtab = _with_sources(program, symtab, opts, problems, gprof_files, all_lines)
    names = [s.name for s in symtab.symbols]
    display, problem = demangle_all(names)
    if problem:
        problems.append(problem)
    files = gprof_file_list(symtab.symbols, image.symbols) if opts.names_files else None
    tables = resolve_tables(opts, symtab.symbols, display, files)
    static_arcs: list[tuple[int, int]] = []
    if opts.static_call_graph and data.has_call_graph:
        static_arcs = _static_arcs(program, symtab, data, problems)
    if own:
        program.release_bytes()
    profile = compute_profile(symtab, data, tables, display, static_arcs, problems, opts.static_call_graph)
    return Loaded(image, data, _with_folded(profile, image, data, opts, file_map), program, file_symbols)


def _with_folded(
    profile: Profile, image: ElfImage, data: GmonData, opts: AnalysisOptions, file_map: ObjectMap | None
) -> Profile:
    """`profile` with the clones gprof folded (clones.py), where its routines are the binary's."""
    if opts.symbol_file is not None or opts.clones_apart or opts.line_granularity or file_map is not None:
        return profile
    folded = folded_symbols(image.symbols, image.strtab, profile.routines, data)
    return replace(profile, folded=folded) if folded else profile


def _symbol_table(program: Program, opts: AnalysisOptions) -> SymbolTable:
    """gprof's routines: the binary's symbols (the Program's table when the options are gprof's
    defaults: built once per load), or -S's table (extsyms.py)."""
    if opts.symbol_file is None and not opts.no_static and not opts.only_functions and not opts.clones_apart:
        return program.symtab
    image = program.image
    elf_symbols, strtab = image.symbols, image.strtab
    if opts.symbol_file is not None:  # -S: no source information for these
        from gmonlens.profile.symbol_file import read_symbol_file

        elf_symbols, strtab = read_symbol_file(opts.symbol_file)
    return build_symbol_table(
        elf_symbols,
        strtab,
        image.text_end,
        no_static=opts.no_static and opts.symbol_file is None,  # -a keeps -S's t symbols
        only_functions=opts.only_functions,
        # -S takes clones (`x.part.0`) as they are, and so does --clones-apart
        name_filter=opts.symbol_file is None and not opts.clones_apart,
    )


def _with_sources(
    program: Program,
    symtab: SymbolTable,
    opts: AnalysisOptions,
    problems: list[str],
    gprof_files: bool,
    all_lines: bool,
) -> SymbolTable:
    """Routines with the source lines `load` gives them, and -l's line symbols."""
    image = program.image
    if image.has_debug_info and opts.symbol_file is None:
        need_all = opts.needs_source_files or all_lines
        if need_all or any(s.is_static for s in symtab.symbols):
            try:
                lines = program.routine_lines(
                    gprof_files=gprof_files, statics=not need_all, from_table=opts.line_granularity
                )
            except Exception as e:  # a broken .debug_line must not stop the report
                problems.append(
                    f"{program.path}: cannot read DWARF line table ({reason(e)}); file names omitted"
                )
                lines = {}
            symtab = attach_lines(symtab, lines, need_all)
    if opts.line_granularity:
        from gmonlens.profile.line_symbols import in_code

        code_end = max((c.address + len(c.data) for c in image.code_sections), default=0)
        if image.has_debug_info and opts.symbol_file is None:
            symtab = _line_symbols(program, symtab, code_end, problems, gprof_files)
        else:
            symtab = in_code(symtab, code_end)
    return symtab


def _static_arcs(
    program: Program, symtab: SymbolTable, data: GmonData, problems: list[str]
) -> list[tuple[int, int]]:
    """-c: the calls found in the code (staticcalls.py), cached on disk per binary, routines and
    histogram ranges."""
    from gmonlens.profile.static_calls import StaticCallsUnsupported, find_static_calls

    image = program.image
    starts = [s.address for s in symtab.symbols]
    ends = [s.end_address for s in symtab.symbols]
    ranges = [(h.low_pc, h.high_pc) for h in data.histograms]
    key = diskcache.derived_key(
        program.key, array("Q", starts).tobytes(), array("q", ends).tobytes(), repr(ranges).encode()
    )
    cached = diskcache.load("staticcalls", key, _static_calls_entry)
    if cached is not None:
        return cached
    try:
        arcs = find_static_calls(
            image.machine,
            image.code_sections,
            starts,
            ends,
            pc_ranges=ranges,
            arch=image.arch,
            little_endian=image.little_endian,
        )
    except StaticCallsUnsupported as e:  # gprof warns and goes on without static arcs
        problems.append(str(e))
        return []
    diskcache.store("staticcalls", key, arcs)
    return arcs
