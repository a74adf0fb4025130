"""`-A`'s per-file block (output/annotate.py) on files that hold none of their symbols' lines."""

from __future__ import annotations

from gmonlens.common.model import Routine
from gmonlens.output.annotate import AnnotateOptions, annotate_file


def _routine(rid: int, name: str, address: int, line: int, calls: int) -> Routine:
    return Routine(
        rid, name, name, address, address + 15, False, True, "/src/lib.c", line,
        0.0, 0.0, 0.0, 0.0, calls, 0, 0, rid + 1, True, True, 1.0,
    )  # fmt: skip


def test_file_without_its_lines_is_fully_executed() -> None:
    """A unity build's lib.c (two lines) named for routines at lines 4 and 11 of the sources it
    includes: gprof prints 0 executable lines, 100.00 percent and 0.00 a line, and goes on."""
    symbols = [_routine(0, "work", 0x1000, 4, 2000), _routine(1, "a_run", 0x1010, 11, 20)]
    block = annotate_file(b'#include "a.c"\n#include "b.c"\n', symbols, AnnotateOptions(frozenset({0, 1})))
    assert block.endswith(
        "Execution Summary:\n\n"
        "        0   Executable lines in this file\n"
        "        0   Lines executed\n"
        "   100.00   Percent of the file executed\n\n"
        "     2020   Total number of line executions\n"
        "     0.00   Average executions per line\n"
    )
    assert "        4       2000\n       11         20\n" in block  # the top lines keep them


def test_empty_file() -> None:
    block = annotate_file(b"", [_routine(0, "f", 0x1000, 1, 0)], AnnotateOptions(frozenset({0})))
    assert "        0   Executable lines in this file\n" in block
    assert "   100.00   Percent of the file executed\n" in block
