"""gprof -R MAP (--file-ordering): a suggested link order of the object files, from the call graph.

Pure. MAP is `nm --extern-only --defined-only -v --print-file-name *.o` output (`FILE:ADDR TYPE
NAME` lines). The rules were inferred from GNU gprof 2.40's output on 107 programs (generated
call graphs with one or several routines per object file, shuffled link orders, the multi-file
test programs, hand-written maps; tests/integration/test_gprof_ordering.py):

* The map: a run of consecutive lines naming the same file is one *entry* (the same file name
  again after another file's lines is a new entry); the address and type are ignored, and a name
  listed twice belongs to its last line's entry. The order of the lines does not matter otherwise.
* The placement of -r (gmonlens/ordering.py) runs on the map's entries instead of routines: the
  arcs between two routines named in the map, in different entries, are summed per (caller entry,
  callee entry), in order of their first arc in gprof's arc order. Unlike -r these entry arcs are
  NOT sorted by count, every entry counts as used (an uncalled `main` is placed), and pass 2 places
  nothing, not even a new chain. The 99% cut runs over the entry arcs and the mapped routines'
  calls to themselves (recursion, placing nothing), in that order; arcs between two routines of
  one entry and arcs to or from static and library routines (absent from the map) weigh nothing.
* The chains are printed, then the entries of the other mapped routines in address order, each
  entry once (a file split over two entries can be printed twice, as gprof does); then every file
  name of the map not printed yet, sorted (byte order), once.

The other sections printed with -R (-p, -q, -C, -A) see a rewritten symbol table
(`mapped_symbols`): each routine named in the map is renamed after its file, for maps that name
one routine per entry (one line per file, names unique: `one_per_entry`). With several routines
per entry gprof keeps some as a routine named after the file and drops the others (their
addresses fall to the routine before them), but which ones it keeps depends on the link order
and on the whole map (seen on the calc example: parser.o's free_tree kept in one link order,
dropped in the other with the same map): gmonlens refuses those maps with other sections. With
-l or -s gprof's listing itself differs (line symbols placed?): refused too.

Not matched: gprof crashes on an empty map and reads some truncated lines (`a.o:0 T`) that gmonlens rejects. -r's unmatched "popular routines" step (ordering.py) was
not seen here: 7 generated programs with 90 called routines (in 12 files, or one per file with
a routine called from 6 others on heavy arcs) match.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .errors import GmonlensError
from .model import Profile
from .ordering import place_by_arcs
from .symbols import SymbolTable

MAP_CAP = 256 << 20  # nm output of a very large program is tens of MB


@dataclass(frozen=True)
class ObjectMap:
    """A parsed map file: the entries' file names, and each routine name's entry."""

    files: tuple[bytes, ...]
    entry_of: dict[bytes, int]
    lines: tuple[int, ...] = ()  # how many lines each entry has


def parse_map(data: bytes, path: str) -> ObjectMap:
    """The `nm --print-file-name` lines of `data`; a bad line is an error naming `path`."""
    files: list[bytes] = []
    lines: list[int] = []
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
    if not files:
        raise GmonlensError(path, "empty map file (expected `nm --print-file-name` output)")
    return ObjectMap(tuple(files), entry_of, tuple(lines))


def one_per_entry(objmap: ObjectMap) -> bool:
    """Does every entry name one routine, each routine once (`mapped_symbols`'s case)?"""
    return all(n == 1 for n in objmap.lines) and len(objmap.entry_of) == len(objmap.files)


def mapped_symbols(symtab: SymbolTable, objmap: ObjectMap) -> SymbolTable:
    """The symbol table gprof's other sections use with -R, for a `one_per_entry` map: each
    mapped routine renamed after its file, the ranges unchanged."""
    syms = []
    for s in symtab.symbols:
        e = objmap.entry_of.get(s.name.encode("utf-8", "surrogateescape"))
        syms.append(s if e is None else replace(s, name=objmap.files[e].decode("utf-8", "surrogateescape")))
    return SymbolTable(tuple(syms), symtab.addresses)


def file_ordering(profile: Profile, objmap: ObjectMap) -> str:
    """The -R listing: one object file per line."""
    rs = profile.routines
    entry = [objmap.entry_of.get(r.name.encode("utf-8", "surrogateescape")) for r in rs]
    arcs: list[tuple[int, int, int]] = []
    first: dict[tuple[int, int], int] = {}  # an entry pair's place in `arcs`: its first arc's
    for a in profile.arcs:  # gprof's arc order, between the entries of mapped routines
        p, c = entry[a.parent], entry[a.child]
        if p is None or c is None or (p == c and a.parent != a.child):
            continue
        if a.parent == a.child:  # recursion weighs in the cut, in its place (and places nothing)
            arcs.append((p, p, a.count))
        elif (p, c) in first:
            i = first[p, c]
            arcs[i] = (p, c, arcs[i][2] + a.count)
        else:
            first[p, c] = len(arcs)
            arcs.append((p, c, a.count))
    order = place_by_arcs(arcs, [True] * len(objmap.files), pass2_starts_chains=False)
    printed = dict.fromkeys(order)
    for e in entry:  # then the routines' entries in address order
        if e is not None:
            printed.setdefault(e)
    names = [objmap.files[e] for e in printed]
    names += sorted(set(objmap.files) - set(names))
    return "".join(f"{n.decode('utf-8', 'surrogateescape')}\n" for n in names)
