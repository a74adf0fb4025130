"""The files of one load, each read from disk at most once: `Program` (the executable) and
`ProfileFiles` (the gmon.out files read with it). An I/O module.

Everything the engine, the commands and the server learn about a binary comes through its
`Program` (pyelftools' lazy style: each fact is read or decoded on first use, then kept): its
identity (real path, device, inode, size, mtime, ctime and GNU build-id: the disk cache's key,
`diskcache.binary_key`), symbols and code (`image`), the fit of the profiles, the source lines of
its routines, the line table, the DWARF index, the function scopes, the call instructions of its
code, and the profiles' records (`gmon`). What the disk cache holds (routine lines, line table,
DWARF index, scopes) is looked up there first and stored there when decoded.

The executable is opened once (`elffile.ElfFile`: headers, then each section it is asked for,
read once and kept, within the file's budget) and stays open while the Program lives (the DWARF
index decodes from it on demand; `release_bytes` closes it), so a Program belongs to one load and
sees one version of the file: a rebuilt binary is read by the next load's Program. Each reader
(symbols, line rows, DWARF) is bounded by a budget of its own, as if it had opened the file. Thread-safe: each fact is computed under a lock of its own; a failure (a
GmonlensError, a malformed section) is kept and raised again, never retried by reading again.
"""

from __future__ import annotations

import os
import struct
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, TypeVar

from gmonlens.binary.elffile import ElfFile
from gmonlens.binary.image import ElfImage, header_facts, is_mapping_symbol, read_elf
from gmonlens.binary.image import is_executable as is_elf_executable
from gmonlens.common.errors import ElfError, GmonFormatError, GmonlensError
from gmonlens.common.files import open_regular, read_open, read_regular
from gmonlens.common.model import GmonData
from gmonlens.dwarf.line_table import LineTable, lines_at
from gmonlens.load import diskcache
from gmonlens.profile import gmon as gmonio
from gmonlens.profile.call_sites import CallFinder
from gmonlens.profile.fit import Fit, profile_fit
from gmonlens.profile.symbols import SymbolTable, build_symbol_table

if TYPE_CHECKING:  # imported when used: dwarf.py imports pyelftools
    from gmonlens.binary.address_names import AddressNames
    from gmonlens.dwarf.declarations import DwarfIndex
    from gmonlens.dwarf.producers import UnitProducer
    from gmonlens.dwarf.scopes import FunctionScopes

T = TypeVar("T")
# A profile file larger than this is refused before reading (gmon.out of a 4 GiB text is 2 GiB).
MAX_PROFILE_BYTES = 1 << 31
# Disk-cache kinds (`lines2`: a row at a sequence's end covers no byte; `-static`: the static
# routines' only, what a report without file symspecs needs).
LINES_KIND, LINES_BFD_KIND = "lines2", "lines3-bfd"
LINES_STATIC_KIND, LINES_BFD_STATIC_KIND = "lines2-static", "lines3-bfd-static"
LINETABLE_KIND, DWARF_KIND, SCOPES_KIND = "linetable", "dwarf", "scopes"
# -l's inputs: the line table as BFD reads it, and the scopes with ELF names for unnamed C++ statics
# (`lines3-bfd`, `linetable-bfd2`: BFD's files spelt as BFD joins them, `.` and `..` kept)
LINETABLE_BFD_KIND, SCOPES_GPROF_KIND = "linetable-bfd2", "scopes-gprof"


def open_elf(path: str) -> ElfFile:
    """The executable at `path`, open with its headers read: the one place that opens a program's
    binary (the loader, the commands, discovery, tests and benchmarks come here); raises ElfError
    (one line naming the file)."""
    fh = open_regular(path, "executable", ElfError)
    try:
        return ElfFile(fh, path)
    except BaseException:
        fh.close()
        raise


def is_executable(path: str) -> bool:
    """Whether `path` is an ELF executable (`binary.image.is_executable`: ET_EXEC, or ET_DYN with
    an interpreter or the PIE flag); False for anything unreadable or malformed."""
    try:
        with open_elf(path) as elf:
            return is_elf_executable(elf)
    except (GmonlensError, OSError):
        return False


def program_head(path: str, size: int) -> bytes:
    """The first `size` bytes of a program to run (a regular file): its ELF magic, or a script's
    `#!` line (`runs.command`); raises GmonlensError naming it."""
    with open_regular(path, "program") as fh:
        return fh.read(size)


def read_profile_bytes(path: str) -> bytes:
    """The bytes of one profile file (a regular file, at most MAX_PROFILE_BYTES), or a one-line
    error naming it."""
    return read_regular(path, MAX_PROFILE_BYTES, "gmon.out profile", GmonFormatError)


def read_hexdump(path: str) -> bytes:
    """The profile a hex dump transcript at `path` shows (a regular file of at most MAX_TRANSCRIPT
    bytes), or a one-line error naming it."""
    from gmonlens.profile.hexdump import decode_hexdump

    text = read_regular(path, MAX_TRANSCRIPT_BYTES, "hex dump transcript", GmonFormatError)
    return decode_hexdump(text.decode("utf-8", "replace"), path)


MAX_TRANSCRIPT_BYTES = 1 << 28  # a console log: a few times the profile's size, and the noise around it
_UNIT_TABLES = 64  # `Program.lines_of`: the line tables of sets of units kept (a unit: ~1 ms to decode)


class _Once:
    """Values computed at most once each, by name, under a lock per name; exceptions are kept."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._values: dict[str, Any] = {}
        self._errors: dict[str, Exception] = {}

    def get(self, name: str, make: Callable[[], T]) -> T:
        if name not in self._values and name not in self._errors:
            with self._guard:
                lock = self._locks.setdefault(name, threading.Lock())
            with lock:
                if name not in self._values and name not in self._errors:
                    try:
                        self._values[name] = make()
                    except Exception as exc:  # kept: asking again must not read the file again
                        self._errors[name] = exc
        if name in self._errors:
            raise self._errors[name]
        value: T = self._values[name]
        return value

    def forget(self, name: str) -> None:
        """Drop the value `name` (computed again when next asked)."""
        with self._guard:
            self._values.pop(name, None)

    def peek(self, name: str) -> Any:
        """The value `name` if computed, else None (nothing computed)."""
        return self._values.get(name)


class ProfileFiles:
    """Profile files, each read once (the bytes are kept: they are small next to the binary) and
    parsed once per (address size, byte order, format), then summed as gprof sums them."""

    def __init__(self, paths: Sequence[str], hexdumps: Collection[str] = (), keep_open: bool = False) -> None:
        self.paths = tuple(paths)
        self.hexdumps = frozenset(hexdumps)  # those of `paths` that are hex dump transcripts
        self._once = _Once()
        self.parsed = False  # whether records were parsed from the files (`gmon`)
        # path -> (device, inode, size, mtime ns, ctime ns) of the file open just before its bytes
        # were read: a file that differs after has changed under the read
        self.read_as: dict[str, tuple[int, int, int, int, int] | None] = {}
        self.keep_open = (
            keep_open  # keep each file open once read (`handles`: to ask if it was written since)
        )
        self.handles: dict[str, Any] = {}

    def data(self, path: str) -> bytes:
        """The bytes of `path` (one of `paths`; a hex dump transcript's decoded: profile/hexdump.py);
        GmonFormatError when it cannot be read."""
        if path in self.hexdumps:
            return self._once.get(f"bytes:{path}", lambda: read_hexdump(path))

        def read() -> bytes:
            fh = open_regular(path, "gmon.out profile", GmonFormatError)
            try:
                st = os.fstat(fh.fileno())
                self.read_as[path] = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                data = read_open(fh, path, MAX_PROFILE_BYTES, "gmon.out profile", GmonFormatError)
            except BaseException:
                fh.close()
                raise
            if self.keep_open:
                self.handles[path] = fh
            else:
                fh.close()
            return data

        return self._once.get(f"bytes:{path}", read)

    def close_handles(self) -> dict[str, Any]:
        """The files kept open since they were read (`keep_open`), handed over (path -> file
        object) to be closed by the caller; kept no longer."""
        handles, self.handles = self.handles, {}
        return handles

    def release_bytes(self) -> None:
        """Let go of the files' bytes (the records parsed from them stay)."""
        for p in self.paths:
            self._once.forget(f"bytes:{p}")

    def content_keys(self) -> list[str]:
        """Each file's `diskcache.content_key`, in order (computed once: the bytes may be let go
        of after)."""
        return list(self._once.get("keys", lambda: [diskcache.content_key(self.data(p)) for p in self.paths]))

    def gmon(self, address_size: int, little_endian: bool, fmt: str = "auto") -> GmonData:
        """The files' records read at a word size and byte order, summed (raises GmonFormatError)."""

        def one(p: str) -> gmonio.GmonFile:
            data = self.data(p)
            try:
                return gmonio.parse_gmon(
                    data, path=p, address_size=address_size, little_endian=little_endian, fmt=fmt
                )
            except GmonlensError:
                why = gmonio.layout_mismatch(
                    data, path=p, address_size=address_size, little_endian=little_endian
                )
                if why is None or fmt != "auto":
                    raise
                raise GmonFormatError(p, why) from None

        def parse() -> GmonData:
            return gmonio.accumulate([one(p) for p in self.paths])

        data = self._once.get(f"gmon:{address_size}:{little_endian}:{fmt}", parse)
        self.parsed = True
        return data


class Program:
    """One executable and the profile files read with it (module docstring)."""

    def __init__(self, path: str, profiles: ProfileFiles | Sequence[str] = ()) -> None:
        self.path = path
        self.profiles = profiles if isinstance(profiles, ProfileFiles) else ProfileFiles(profiles)
        self._once = _Once()
        self._fits = _Once()  # facts of these profiles against the binary: never shared (with_profiles)
        self._unit_tables: OrderedDict[tuple[int, ...], LineTable] = OrderedDict()
        self._unit_lock = threading.Lock()

    def with_profiles(self, profiles: ProfileFiles | Sequence[str]) -> Program:
        """The same executable with other profile files: what was read or decoded of the binary
        is shared, never read again (a baseline run of the same build)."""
        other = Program(self.path, profiles)
        other._once = self._once  # binary facts only: the profiles' are `ProfileFiles`'
        other._unit_tables, other._unit_lock = self._unit_tables, self._unit_lock
        return other

    # ---- the file ------------------------------------------------------------------------------

    def elf(self) -> ElfFile:
        """The executable, open (headers read); raises ElfError."""
        return self._once.get("elf", lambda: open_elf(self.path))

    def _reader(self) -> ElfFile:
        """The open file with a budget of its own, for one reader's pass."""
        return self.elf().with_budget()

    @property
    def image(self) -> ElfImage:
        """Header facts, symbols and code (`image.read_elf`); raises ElfError."""
        return self._once.get("image", lambda: read_elf(self._reader()))

    def address_names(self) -> AddressNames | None:
        """The names objdump -d gives the executable's addresses (`address_names`: symbols, PLT
        entries, dynamically relocated slots), read once through the open file; None when the
        file cannot be read for them (a listing then names targets by code symbols alone)."""

        def make() -> AddressNames | None:
            from gmonlens.binary.address_names import read_address_names

            try:
                return read_address_names(self._reader())
            except (GmonlensError, struct.error, ValueError, IndexError, OverflowError):
                return None

        return self._once.get("address_names", make)

    def needed_libraries(self) -> list[str]:
        """The executable's DT_NEEDED shared library names (`image.needed_libraries`), read through
        the open file."""
        from gmonlens.binary.image import needed_libraries

        return self._once.get("needed", lambda: needed_libraries(self._reader()))

    def dynamic_symbol_names(self) -> list[str]:
        """The names of the executable's `.dynsym` (`image.dynamic_symbol_names`: what a stripped
        executable still names), read through the open file."""
        from gmonlens.binary.image import dynamic_symbol_names

        return self._once.get("dynsym", lambda: dynamic_symbol_names(self._reader()))

    def unit_producers(self) -> list[UnitProducer]:
        """Each compilation unit's name, directory, language and DW_AT_producer
        (`dwarf.producers`: unit headers and top entries only), [] without debugging information;
        raises `Unsupported` for DWARF that reader does not read (split DWARF 5), ElfError."""
        from gmonlens.dwarf.producers import unit_producers

        return self._once.get("producers", lambda: unit_producers(self._reader()))

    def release_bytes(self) -> None:
        """Close the executable and let go of the sections and the profiles' bytes read (the facts
        read from them stay). A fact asked later that needs them reads the file again: for the
        CLI, whose peak memory is the arithmetic after the reading, not for a load that lives on
        (the server's)."""
        elf = self._once.peek("elf")
        self._once.forget("elf")
        if isinstance(elf, ElfFile):
            elf.close()
        self.profiles.release_bytes()

    def release_profile_inputs(self) -> None:
        """Let go of what only computing a profile needs once it is computed: the symbol table
        (`symtab`: a record per symbol; built again if asked) and the profiles' bytes (their
        parsed records and content keys stay). For a load that lives on (the server's)."""
        self._once.forget("symtab")
        if self.profiles.parsed:  # else the records would read the files again
            self.profiles.release_bytes()

    @property
    def header(self) -> tuple[int, bool, str | None]:
        """(address size, little endian, GNU build-id) from the ELF headers alone (no symbols);
        raises ElfError."""
        return self._once.get("header", lambda: header_facts(self.elf()))

    @property
    def key(self) -> str | None:
        """The disk cache's identity of this executable (`diskcache.binary_key`: path, inode, size,
        times, build-id); None when it cannot be had. Raises ElfError for what is not ELF."""
        return self._once.get("key", lambda: diskcache.binary_key(self.path, self.header[2]))

    def identity(self) -> tuple[int, int, int, int]:
        """(device, inode, size, mtime ns) of the executable as this load opened it (a file
        replaced or rewritten since differs); raises ElfError."""
        return self.elf().identity

    @property
    def symtab(self) -> SymbolTable:
        """gprof's routines with the default options (the fit rule's)."""
        image = self.image
        return self._once.get(
            "symtab", lambda: build_symbol_table(image.symbols, image.strtab, image.text_end)
        )

    def gmon(self, fmt: str = "auto") -> GmonData:
        """The profiles' records at this executable's word size and byte order, summed."""
        address_size, little_endian, _ = self.header
        return self.profiles.gmon(address_size, little_endian, fmt)

    def fit(self, fmt: str = "auto") -> Fit:
        """The engine's fit rule (`gmonlens.profile.fit`) for the profiles; raises ElfError for a binary
        gprof cannot use and GmonFormatError for a profile unreadable at its word size. Computed
        once per format: discovery's check and the load's share it (an error too, raised again); a
        Program made by `with_profiles` computes its own."""
        return self._fits.get(
            f"fit:{fmt}",
            lambda: profile_fit(self.image, self.symtab, self.gmon(fmt), ", ".join(self.profiles.paths)),
        )

    def call_finder(self) -> CallFinder:
        """The call instructions of the code (`call_sites`), decoded on demand."""

        def make() -> CallFinder:
            image = self.image
            sections = [(c.address, c.data) for c in image.code_sections]
            return CallFinder(
                image.machine,
                image.address_size,
                sections,
                little=image.little_endian,
                arm_mapping=image.arm_mapping,
            )

        return self._once.get("calls", make)

    # ---- source lines --------------------------------------------------------------------------

    def routine_lines(
        self,
        *,
        gprof_files: bool = False,
        statics: bool = False,
        from_table: bool = False,
        units: bool = False,
    ) -> dict[int, tuple[str, int]]:
        """Source (file, line) of every candidate routine address (T/t/W symbols but mapping
        symbols: `image.is_mapping_symbol`), or with `statics` of the static ones (t symbols:
        what gprof's report names files for) at least:
        a much smaller entry, the whole table when it is already at hand.

        `gprof_files=True` gives the file gprof names (BFD's reading of the line table, as
        `addr2line` prints it; `line_table.lines_at`), otherwise the true source position. Cached
        on disk, one entry per rule and extent. `from_table=True` (the caller reads the whole
        `line_table` of the same rule anyway: -l) answers from that table's `lookup` (the same
        answers) instead of decoding the line programs a second time. `units=True` (the true
        source position only) decodes the line programs of only the units holding the addresses
        (`lines_of`: the same answers), for callers that will not read the whole table soon."""
        name = f"lines:{gprof_files}"
        if statics:
            whole = self._once.peek(name)
            if whole is not None:
                return whole  # type: ignore[no-any-return]
            name += ":static"

        def make() -> dict[int, tuple[str, int]]:
            if statics:
                kind = LINES_BFD_STATIC_KIND if gprof_files else LINES_STATIC_KIND
            else:
                kind = LINES_BFD_KIND if gprof_files else LINES_KIND
            cached = diskcache.load(kind, self.key, _lines_entry)
            if cached is not None:
                return cached
            letters = ("t",) if statics else ("T", "t", "W")
            # not ARM's `$t`/`$d` marks (6,000 `t` symbols in a 3,000-routine firmware): no routine
            wanted = {
                s.value
                for s in self.image.symbols
                if s.class_letter in letters and not is_mapping_symbol(s.name)
            }
            if from_table and wanted:
                table = self.line_table(bfd=gprof_files)
                out = {a: hit for a in wanted if (hit := table.lookup(a)) is not None}
            elif units and not gprof_files and wanted:
                out = self.lines_of(sorted(wanted), held_only=True)
            else:
                out = lines_at(self._reader(), wanted, bfd=gprof_files) if wanted else {}
            diskcache.store(kind, self.key, out)
            return out

        return self._once.get(name, make)

    def line_table(self, *, bfd: bool = False) -> LineTable:
        """Every line program (`LineTable`; `bfd=True`: as BFD reads them, for gprof's line
        symbols). Both are cached on disk."""
        kind = LINETABLE_BFD_KIND if bfd else LINETABLE_KIND

        def make() -> LineTable:
            table = diskcache.load(kind, self.key, LineTable.from_plain)
            if table is None:
                table = LineTable.from_elf(self._reader(), bfd=bfd)
                plain = table.to_plain()
                if plain is not None:
                    diskcache.store(kind, self.key, plain)
            return table

        return self._once.get(f"linetable:{bfd}", make)

    def lines_of(
        self,
        addresses: Iterable[int],
        dwarf_lock: AbstractContextManager[Any] | None = None,
        *,
        held_only: bool = False,
    ) -> dict[int, tuple[str, int]]:
        """`line_table().lookup` of each address that a row covers (the true source position):
        from the whole table when it is already read, else from the line programs of only the
        units whose code ranges hold the address (`DwarfIndex.line_programs_at`; each set of
        units' table decoded once, the last `_UNIT_TABLES` kept), and from the whole table for an
        address no unit holds or where the programs are not DWARF 5 (`programs_by_offset`).
        `held_only=True` gives no answer for an address no unit holds when the programs are DWARF
        5 (code without debug information: crt's routines; compilers give every unit with line
        rows its code ranges), so the whole table is not read for them.
        Uses `dwarf()`, which is not thread-safe: held under `dwarf_lock` when given (not while
        the whole table is read)."""
        wanted = list(dict.fromkeys(addresses))
        out: dict[int, tuple[str, int]] = {}
        if self._once.peek("linetable:False") is not None:
            rest = wanted
        else:
            with dwarf_lock or nullcontext():
                rest = self._unit_lookups(wanted, out, held_only)
        if rest:
            table = self.line_table()
            for a in rest:
                hit = table.lookup(a)
                if hit is not None:
                    out[a] = hit
        return out

    def _unit_lookups(self, wanted: list[int], out: dict[int, tuple[str, int]], held_only: bool) -> list[int]:
        """Answer `wanted` into `out` from the tables of the units holding each address (see
        `lines_of`); returns the addresses left for the whole table."""
        from gmonlens.dwarf.line_headers import programs_by_offset

        progs = self._once.get("lineprogs", lambda: programs_by_offset(self._reader()))
        dwarf = self.dwarf()
        rest = []
        for a in wanted:
            offsets = dwarf.line_programs_at(a) if progs is not None else None
            if offsets is None or any(o not in progs for o in offsets):  # type: ignore[operator]
                if not (held_only and progs is not None and not dwarf.holds(a)):
                    rest.append(a)
                continue
            key = tuple(sorted(set(offsets)))  # section order: the whole table's order
            with self._unit_lock:
                table = self._unit_tables.get(key)
                if table is None:
                    table = LineTable.from_programs(progs[o] for o in key)  # type: ignore[index]
                    self._unit_tables[key] = table
                    if len(self._unit_tables) > _UNIT_TABLES:
                        self._unit_tables.popitem(last=False)
                else:
                    self._unit_tables.move_to_end(key)
            hit = table.lookup(a)
            if hit is not None:
                out[a] = hit
        return rest

    # ---- DWARF ---------------------------------------------------------------------------------

    def dwarf(self) -> DwarfIndex:
        """The `DwarfIndex` (decoded lazily from the open file; seeded from the disk cache when a
        complete one is there: `dwarf_cached`). Not thread-safe itself (see `declarations.py`)."""
        return self._once.get("dwarf", self._make_dwarf)[0]

    @property
    def dwarf_cached(self) -> bool:
        """Whether `dwarf()` came complete from the disk cache."""
        return bool(self._once.get("dwarf", self._make_dwarf)[1])

    def _make_dwarf(self) -> tuple[DwarfIndex, bool]:
        from gmonlens.dwarf.declarations import DwarfIndex

        index = diskcache.load(
            DWARF_KIND, self.key, lambda d: DwarfIndex.from_export(self.path, d, self._reader)
        )
        if index is not None:
            return index, True
        return DwarfIndex(self.path, self._reader), False

    def complete_dwarf(self) -> None:
        """Decode every unit of `dwarf()` and store the whole index in the disk cache (the
        warm-up's work), unless it came from there."""
        dwarf = self.dwarf()
        if self.dwarf_cached or not dwarf.has_debug_info:
            return
        for unit in dwarf.units():
            dwarf.decls_of_unit(unit.offset)
            dwarf.pack_unit(unit.offset)
        dwarf.prepare_ranges()
        diskcache.store(DWARF_KIND, self.key, dwarf.export())

    def forget_dwarf(self) -> None:
        """Let go of `dwarf()` (decoded again, or read from the disk cache, when next asked)."""
        self._once.forget("dwarf")

    def scopes(self, *, compute: bool) -> FunctionScopes | None:
        """The innermost function at each address (`scopes.FunctionScopes`) from the disk cache;
        when not there, computed (every DWARF DIE: seconds on a large program) and stored if
        `compute`, else None."""
        from gmonlens.dwarf.scopes import FunctionScopes

        cached = diskcache.load(SCOPES_KIND, self.key, FunctionScopes.from_plain)
        if cached is not None or not compute:
            return cached
        return self._once.get("scopes", self._make_scopes)

    def _make_scopes(self) -> FunctionScopes:
        from gmonlens.dwarf.declarations import DwarfIndex
        from gmonlens.dwarf.scopes import function_scopes

        scopes = function_scopes(DwarfIndex(self.path, self._reader))  # an index of its own: threads
        diskcache.store(SCOPES_KIND, self.key, (scopes.bounds, scopes.names))
        return scopes

    def store_scopes(self) -> None:
        """Store both kinds of scopes (`scopes`, `gprof_scopes`) in the disk cache where missing,
        from one walk over the DWARF entries (`scopes.function_scope_pair`; the warm-up's work).
        Nothing is kept in this Program (the symbols, when read for this, are let go of before
        the walk)."""
        from gmonlens.dwarf.declarations import DwarfIndex
        from gmonlens.dwarf.scopes import elf_code_names, function_scope_pair

        key = self.key
        if diskcache.exists(SCOPES_KIND, key) and diskcache.exists(SCOPES_GPROF_KIND, key):
            return
        had_image = self._once.peek("image") is not None
        names = elf_code_names(self.image.symbols)
        if not had_image:
            self._once.forget("image")
        index = DwarfIndex(self.path, self._reader)
        plain, gprof = function_scope_pair(index, names)
        del names
        del index
        for kind, scopes in ((SCOPES_KIND, plain), (SCOPES_GPROF_KIND, gprof)):
            if not diskcache.exists(kind, key):
                diskcache.store(kind, key, (scopes.bounds, scopes.names))

    def store_line_tables(self) -> None:
        """Store both line tables (`line_table()`, `line_table(bfd=True)`) in the disk cache
        where missing, from one decoding of each line program (`LineTable.pair_from_elf`; the
        warm-up's work). Nothing is kept in this Program."""
        key = self.key
        kinds = (LINETABLE_KIND, LINETABLE_BFD_KIND)
        if all(diskcache.exists(k, key) for k in kinds):
            return
        tables = list(LineTable.pair_from_elf(self._reader()))
        for kind in kinds:
            table = tables.pop(0)
            plain = table.to_plain() if not diskcache.exists(kind, key) else None
            del table  # the other table shares its columns: what is freed here is its own
            if plain is not None:
                diskcache.store(kind, key, plain)
            del plain  # before the next table's plain data is made

    def has_scopes(self) -> bool:
        """Whether the disk cache holds the scopes."""
        return diskcache.exists(SCOPES_KIND, self.key)

    def gprof_scopes(self) -> FunctionScopes:
        """The scopes named as gprof -l names them (ELF names for unnamed C++ statics;
        `scopes.function_scopes`), for the line symbols and gmon.sum; cached on disk."""

        def make() -> FunctionScopes:
            from gmonlens.dwarf.scopes import FunctionScopes

            cached = diskcache.load(SCOPES_GPROF_KIND, self.key, FunctionScopes.from_plain)
            if cached is not None:
                return cached  # pyelftools (dwarf.py) is not imported: a warm report -l needs none
            from gmonlens.dwarf.declarations import DwarfIndex
            from gmonlens.dwarf.scopes import elf_code_names, function_scopes

            scopes = function_scopes(DwarfIndex(self.path, self._reader), elf_code_names(self.image.symbols))
            diskcache.store(SCOPES_GPROF_KIND, self.key, (scopes.bounds, scopes.names))
            return scopes

        return self._once.get("gprof-scopes", make)


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
