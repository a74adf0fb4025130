"""gprof -R MAP (--file-ordering): a suggested link order of the object files, from the call graph.

Pure. MAP is `nm --extern-only --defined-only -v --print-file-name *.o` output (`FILE:ADDR TYPE
NAME` lines). The rules were inferred from GNU gprof 2.40's output (generated programs with one or
several routines per object file, statics, shuffled link orders and maps, the multi-file test
programs, hand-written maps; tests/integration/test_gprof_ordering.py and test_file_ordering.py):

* The map: a run of consecutive lines naming the same file is one *entry* (the same file name
  again after another file's lines is a new entry); the address and type are ignored.
* The symbol table (`mapped_symbols`, what every section of a -R report sees): a routine named in
  the map (the line found as glibc's bsearch finds it among the lines sorted by name, which
  decides for a name listed twice) is renamed after its file if that line is the first of its
  entry, and dropped otherwise: its addresses fall to the symbol before it, so with `nm -v` maps
  (lines in address order) an object file's routines become one symbol named after the file.
  gprof 2.40 decides "first of its entry" from a flag it sets for first lines and never
  initialises for the others: its heap garbage decides for them (valgrind reports the
  uninitialised read; with `MALLOC_PERTURB_=254` gprof keeps every routine, with
  `MALLOC_PERTURB_=1` or under valgrind only the first lines' routines). gmonlens gives the output
  of gprof with clean memory; on maps naming one routine per entry the garbage does not matter.
  The tests run gprof with MALLOC_PERTURB_=1.
  With -S FILE gprof maps nothing (only the binary's own symbols are mapped): the sections are
  unchanged and the listing is the map's files, sorted.
* The listing runs the placement of -r (gmonlens/ordering.py) over that symbol table's arcs, in
  gprof's arc order, NOT sorted by count: the 99% cut runs over every arc but a symbol's calls to
  itself (recursion, and calls between routines folded into one file symbol); only arcs between
  two file symbols place anything, every file symbol counts as used (an uncalled `main` is
  placed), and pass 2 places nothing, not even a new chain.
* The chains are printed, then the other file symbols in address order (a file split over two
  entries can be printed twice, as gprof does); then every file name of the map not printed yet,
  sorted (byte order), once.

Not matched: gprof crashes on an empty map and reads some truncated lines (`a.o:0 T`) that gmonlens
rejects. -r's "popular routines" step (ordering.py) was not seen here: 7 generated
programs with 90 called routines (in 12 files, or one per file with a routine called from 6
others on heavy arcs) match.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gmonlens.common.errors import GmonlensError
from gmonlens.common.model import Profile, Symbol
from gmonlens.profile.function_order import place_by_arcs
from gmonlens.profile.symbols import SymbolTable

MAP_CAP = 256 << 20  # nm output of a very large program is tens of MB


@dataclass(frozen=True)
class ObjectMap:
    """A parsed map file: the entries' file names, and each routine name's entry."""

    files: tuple[bytes, ...]
    entry_of: dict[bytes, int]
    lines: tuple[int, ...] = ()  # how many lines each entry has
    records: tuple[tuple[bytes, int], ...] = ()  # (routine name, entry) of each line, in file order


def parse_map(data: bytes, path: str) -> ObjectMap:
    """The `nm --print-file-name` lines of `data`; a bad line is an error naming `path`."""
    files: list[bytes] = []
    lines: list[int] = []
    records: list[tuple[bytes, int]] = []
    entry_of: dict[bytes, int] = {}
    for n, raw in enumerate(data.split(b"\n"), 1):
        line = raw.strip()
        if not line:
            continue
        name, colon, rest = line.partition(b":")
        fields = rest.split()
        if not colon or not name.strip() or len(fields) < 3:
            raise GmonlensError(path, f"line {n}: not an `nm --print-file-name` line (FILE:ADDR TYPE NAME)")
        name = name.strip()
        if not files or files[-1] != name:
            files.append(name)
            lines.append(0)
        lines[-1] += 1
        entry_of[fields[2]] = len(files) - 1
        records.append((fields[2], len(files) - 1))
    if not files:
        raise GmonlensError(path, "empty map file (expected `nm --print-file-name` output)")
    return ObjectMap(tuple(files), entry_of, tuple(lines), tuple(records))


@dataclass(frozen=True)
class MappedSymbols:
    """`mapped_symbols`' result: the symbol table the sections see, and which of its symbols
    stand for a map entry (their addresses, with the entry)."""

    symtab: SymbolTable
    entry_at: dict[int, int]


def mapped_symbols(symtab: SymbolTable, objmap: ObjectMap) -> MappedSymbols:
    """The symbol table of gprof -R (module docstring): the routine of each entry's first line
    renamed after its file, the other routines named in the map dropped (their addresses fall to
    the symbol before them)."""
    order = sorted(range(len(objmap.records)), key=lambda i: objmap.records[i][0])  # stable
    keys = [objmap.records[i][0] for i in order]
    syms: list[Symbol] = []
    entry_at: dict[int, int] = {}
    for s in symtab.symbols:
        line = _bsearch(keys, s.name.encode("utf-8", "surrogateescape"))
        if line < 0:
            syms.append(s)
            continue
        i = order[line]
        e = objmap.records[i][1]
        if i and objmap.records[i - 1][1] == e:  # not its entry's first line: dropped
            if syms:
                syms[-1] = replace(syms[-1], end_address=s.end_address)
            continue
        syms.append(replace(s, name=objmap.files[e].decode("utf-8", "surrogateescape")))
        entry_at[s.address] = e
    return MappedSymbols(SymbolTable(tuple(syms), tuple(s.address for s in syms)), entry_at)


def _bsearch(keys: list[bytes], key: bytes) -> int:
    """glibc's bsearch (which line gprof finds when a name is listed twice), or -1."""
    lo, hi = 0, len(keys)
    while lo < hi:
        mid = (lo + hi) // 2
        if key < keys[mid]:
            hi = mid
        elif key > keys[mid]:
            lo = mid + 1
        else:
            return mid
    return -1


def file_ordering(profile: Profile, objmap: ObjectMap, entry_at: dict[int, int]) -> str:
    """The -R listing over the mapped profile (`mapped_symbols`): one object file per line."""
    rs = profile.routines
    mapped = [r.address in entry_at for r in rs]
    # the 99% cut runs over every arc but the calls of a symbol to itself (recursion and calls
    # between routines folded into one file symbol), in gprof's arc order; only arcs between two
    # file symbols place anything
    arcs = [(a.parent, a.child, a.count) for a in profile.arcs if a.parent != a.child]
    order = place_by_arcs(arcs, mapped, pass2_greedy=False)
    printed = dict.fromkeys(order)
    for r in rs:  # then the other entries' symbols in address order
        if mapped[r.id]:
            printed.setdefault(r.id)
    names = [rs[i].name.encode("utf-8", "surrogateescape") for i in printed]
    names += sorted(set(objmap.files) - set(names))
    return "".join(f"{n.decode('utf-8', 'surrogateescape')}\n" for n in names)
