"""Files -> Profile: the engine's entry point for the CLI and the server (an I/O module)."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from . import diskcache
from . import gmon as gmonio
from .callgraph import compute_profile
from .demangle import demangle_all
from .elf import ElfImage, read_elf
from .errors import GmonFormatError, GmonlensError, reason
from .fileorder import ObjectMap, mapped_symbols
from .files import read_regular
from .fit import Fit, profile_fit
from .linetable import LineTable, lines_at
from .model import GmonData, Profile, Symbol
from .options import AnalysisOptions, resolve_tables
from .symbols import SymbolTable, build_symbol_table

# A profile file larger than this is refused before reading (gmon.out of a 4 GiB text is 2 GiB).
MAX_PROFILE_BYTES = 1 << 31
# Disk-cache kinds of `routine_lines` (2: a row at a sequence's end covers no byte).
LINES_KIND, LINES_BFD_KIND = "lines2", "lines2-bfd"


def read_profile_bytes(path: str) -> bytes:
    """The bytes of one profile file (a regular file, at most MAX_PROFILE_BYTES), or a one-line
    error naming it."""
    return read_regular(path, MAX_PROFILE_BYTES, "gmon.out profile", GmonFormatError)


def read_profiles(image: ElfImage, paths: Sequence[str], fmt: str = "auto") -> GmonData:
    files = [
        gmonio.parse_gmon(
            read_profile_bytes(p),
            path=p,
            address_size=image.address_size,
            little_endian=image.little_endian,
            fmt=fmt,
        )
        for p in paths
    ]
    return gmonio.accumulate(files)


def fit_problems(image: ElfImage, symtab: SymbolTable, data: GmonData, paths: Sequence[str]) -> list[str]:
    """The engine's fit rule (gmonlens.fit): raise when the profile plainly is not the binary's,
    return the warnings when it fits only loosely. gprof prints an empty report instead."""
    label = ", ".join(paths)
    fit = profile_fit(image, symtab, data, label)
    if fit.errors:
        raise GmonlensError(label, fit.errors[0])
    return list(fit.warnings)


def check_fit(
    binary: str,
    profiles: Sequence[str],
    fmt: str = "auto",
    parsed: dict[tuple[int, bool], GmonData] | None = None,
) -> Fit:
    """Read `binary` (headers, symbols, code) and the profiles, and apply the fit rule; raises
    ElfError for a binary gprof cannot use (stripped, not ELF) and GmonFormatError for a profile it
    cannot read at this binary's word size. For discovery, which passes `parsed` to read the
    profiles once per (address size, byte order) over all its candidates."""
    image = read_elf(binary)
    symtab = build_symbol_table(image.symbols, image.strtab, image.text_end)
    key = (image.address_size, image.little_endian)
    data = parsed.get(key) if parsed is not None else None
    if data is None:
        data = read_profiles(image, profiles, fmt)
        if parsed is not None:
            parsed[key] = data
    return profile_fit(image, symtab, data, ", ".join(profiles))


def routine_lines(
    image: ElfImage, binary: str, line_table: LineTable | None = None, *, gprof_files: bool = False
) -> dict[int, tuple[str, int]]:
    """Source (file, line) of every candidate routine address (T/t/W symbols).

    `gprof_files=True` gives the file gprof names (BFD's reading of the line table, as
    `addr2line` prints it; see `linetable.lines_at`), otherwise the true source position.
    Decoding the line programs is the costly part of a report on a large program and depends only
    on the binary, so the result is cached under $XDG_CACHE_HOME (see diskcache), one entry per
    rule. A caller-supplied `line_table` is used as given and never cached.
    """
    wanted = {s.value for s in image.symbols if s.class_letter in ("T", "t", "W")}
    if line_table is not None:
        return {a: hit for a in wanted if (hit := line_table.lookup(a)) is not None}
    kind = LINES_BFD_KIND if gprof_files else LINES_KIND
    key = diskcache.binary_key(binary, image.build_id)
    cached = diskcache.load(kind, key, _lines_entry)
    if cached is not None:
        return cached
    out = lines_at(binary, wanted, bfd=gprof_files)
    diskcache.store(kind, key, out)
    return out


def _lines_entry(value: object) -> dict[int, tuple[str, int]]:
    """A cached `routine_lines` result, shape-checked ({address: (file, line)})."""
    diskcache.expect(isinstance(value, dict) and diskcache.only(list(value), int))
    assert isinstance(value, dict)
    pairs = list(value.values())
    diskcache.expect(diskcache.only(pairs, tuple) and all(len(v) == 2 for v in pairs))
    diskcache.expect(
        diskcache.only([v[0] for v in pairs], str) and diskcache.only([v[1] for v in pairs], int)
    )
    return value


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
    image: ElfImage,
    symtab: SymbolTable,
    line_table: LineTable | None,
    code_end: int,
    problems: list[str],
    gprof_files: bool,
) -> SymbolTable:
    """-l: the routines plus gprof's line symbols (report_lines.py), files named as `load` says."""
    from .dwarf import DwarfIndex
    from .report_lines import with_line_symbols
    from .scopes import elf_code_names, function_scopes

    binary = image.path
    try:
        table = line_table or LineTable.from_elf(binary, bfd=gprof_files)
        scopes = function_scopes(DwarfIndex(binary), elf_code_names(image.symbols))
    except Exception as e:  # a broken DWARF section must not stop the report
        problems.append(f"{binary}: cannot read DWARF line information ({reason(e)}); no line symbols")
        return symtab
    return with_line_symbols(symtab, table, scopes, image.symbols, code_end)


@dataclass(frozen=True)
class Loaded:
    """A computed profile with the inputs it came from."""

    image: ElfImage
    gmon: GmonData
    profile: Profile
    file_symbols: dict[int, int] = field(default_factory=dict)  # -R: address -> map entry (fileorder.py)


def load_profile(
    binary: str,
    profiles: Sequence[str],
    options: AnalysisOptions | None = None,
    *,
    image: ElfImage | None = None,
    line_table: LineTable | None = None,
    gprof_files: bool = False,
    all_lines: bool = False,
) -> Profile:
    """Read the binary and its profile files and compute gprof's figures.

    Raises GmonlensError (one line naming the file) for input gprof refuses or that cannot be the
    program's profile; warnings land in `Profile.problems`.
    """
    return load(
        binary,
        profiles,
        options,
        image=image,
        line_table=line_table,
        gprof_files=gprof_files,
        all_lines=all_lines,
    ).profile


def load(
    binary: str,
    profiles: Sequence[str],
    options: AnalysisOptions | None = None,
    *,
    image: ElfImage | None = None,
    line_table: LineTable | None = None,
    gprof_files: bool = False,
    all_lines: bool = False,
    file_map: ObjectMap | None = None,
) -> Loaded:
    """`load_profile`, keeping the ELF image and the summed gmon data (for `-s`).

    Routines get a source file and line when gprof needs one (static routines, file symspecs) or
    `all_lines` asks for every routine. `gprof_files=True` takes gprof's file for a routine (what
    its report labels and file symspecs use); the default, the true position (what editors show).
    `file_map` (-R's map) renames and drops the mapped routines as gprof's sections show them
    (`fileorder.mapped_symbols`).
    """
    opts = options or AnalysisOptions()
    image = image or read_elf(binary)
    elf_symbols, strtab = image.symbols, image.strtab
    if opts.symbol_file is not None:  # -S (extsyms.py): no source information for these
        from .extsyms import read_symbol_file

        elf_symbols, strtab = read_symbol_file(opts.symbol_file)
    symtab = build_symbol_table(
        elf_symbols,
        strtab,
        image.text_end,
        no_static=opts.no_static and opts.symbol_file is None,  # -a keeps -S's t symbols
        only_functions=opts.only_functions,
        name_filter=opts.symbol_file is None,  # -S takes clones (`x.part.0`) as they are
    )
    data = read_profiles(image, profiles, opts.profile_format)
    problems = fit_problems(image, symtab, data, profiles)
    file_symbols: dict[int, int] = {}
    if file_map is not None and opts.symbol_file is None:  # gprof maps only the binary's symbols
        mapped = mapped_symbols(symtab, file_map)
        symtab, file_symbols = mapped.symtab, mapped.entry_at
    if image.has_debug_info and opts.symbol_file is None:
        need_all = opts.needs_source_files or all_lines
        if need_all or any(s.is_static for s in symtab.symbols):
            try:
                lines = routine_lines(image, binary, line_table, gprof_files=gprof_files)
            except Exception as e:  # a broken .debug_line must not stop the report
                problems.append(f"{binary}: cannot read DWARF line table ({reason(e)}); file names omitted")
                lines = {}
            symtab = attach_lines(symtab, lines, need_all)
    if opts.line_granularity:
        from .report_lines import in_code

        code_end = max((c.address + len(c.data) for c in image.code_sections), default=0)
        if image.has_debug_info and opts.symbol_file is None:
            symtab = _line_symbols(image, symtab, line_table, code_end, problems, gprof_files)
        else:
            symtab = in_code(symtab, code_end)
    names = [s.name for s in symtab.symbols]
    display, problem = demangle_all(names)
    if problem:
        problems.append(problem)
    tables = resolve_tables(opts, symtab.symbols, display)
    static_arcs: list[tuple[int, int]] = []
    if opts.static_call_graph and data.has_call_graph:
        from .staticcalls import StaticCallsUnsupported, find_static_calls

        starts = [s.address for s in symtab.symbols]
        ends = [s.end_address for s in symtab.symbols]
        ranges = [(h.low_pc, h.high_pc) for h in data.histograms]
        key = diskcache.derived_key(
            diskcache.binary_key(binary, image.build_id),
            array("Q", starts).tobytes(),
            array("q", ends).tobytes(),
            repr(ranges).encode(),
        )
        cached = diskcache.load("staticcalls", key, _static_calls_entry)
        if cached is not None:
            static_arcs = cached
        else:
            try:
                static_arcs = find_static_calls(
                    image.machine, image.code_sections, starts, ends, pc_ranges=ranges
                )
                diskcache.store("staticcalls", key, static_arcs)
            except StaticCallsUnsupported as e:  # gprof warns and goes on without static arcs
                problems.append(str(e))
    profile = compute_profile(symtab, data, tables, display, static_arcs, problems, opts.static_call_graph)
    return Loaded(image, data, profile, file_symbols)
