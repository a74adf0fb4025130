"""`-i`: what each profile file holds, as `gprof -i` prints it (the files' bytes as the load's
`Program` read them).

Observed on gprof 2.40: one block per file in command-line order, `File `PATH' (version V)
contains:` (V is the version of the last GNU header read so far, 0 before any: a BSD file
after a GNU one says `version 1`, a quirk kept) and three tab-indented counts of
records *as stored in that file* (before summing): histogram records, call-graph records (one per
arc record, duplicates not merged) and basic-block count records (the entries of glibc's rare bb
records), each `record` with an `s` unless the count is 1. Other output follows after a form feed.
"""

from __future__ import annotations

from gmonlens.load.program import Program
from gmonlens.profile import gmon as gmonio


def _count(n: int, what: str) -> str:
    return "\t%d %s record%s\n" % (n, what, "" if n == 1 else "s")


def file_info(program: Program, fmt: str = "auto") -> str:
    image = program.image
    out: list[str] = []
    version = 0
    for path in program.profiles.paths:
        f = gmonio.parse_gmon(
            program.profiles.data(path),
            path=path,
            address_size=image.address_size,
            little_endian=image.little_endian,
            fmt=fmt,
        )
        if f.format == "gnu":
            version = f.version
        out.append("File `%s' (version %d) contains:\n" % (path, version))
        out.append(_count(len(f.histograms), "histogram"))
        out.append(_count(len(f.arcs), "call-graph"))
        out.append(_count(f.bb_count, "basic-block count"))
    return "".join(out)
