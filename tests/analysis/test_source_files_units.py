"""gprof's source-file list and the one file a file symspec names (common/source_files.py,
options.SymSpec.in_files); the rule was found with gprof 2.40 on two `parser.c`
(tests/integration/test_source_layouts.py)."""

from __future__ import annotations

from gmonlens.common.model import ElfSymbol, Symbol
from gmonlens.common.options import SymSpec, table
from gmonlens.common.source_files import gprof_file_list, named_file

GRAMMAR, RUNTIME, MAIN = "/p/grammar/parser.c", "/p/runtime/parser.c", "/p/main.c"
# address order: g_spin, g_rule (grammar), r_spin, r_step (runtime), main
SYMBOLS = [
    Symbol("g_spin", 0x1000, 0x100F, True, False, GRAMMAR, 1),
    Symbol("g_rule", 0x1010, 0x101F, True, False, GRAMMAR, 2),
    Symbol("r_spin", 0x1020, 0x102F, True, True, RUNTIME, 1),
    Symbol("r_step", 0x1030, 0x103F, True, False, RUNTIME, 2),
    Symbol("main", 0x1040, 0x104F, True, False, MAIN, 3),
]


def _elf(*names: str) -> list[ElfSymbol]:
    at = {s.name: s.address for s in SYMBOLS}
    return [ElfSymbol(n, 0, at[n], "T", True) for n in names]


def test_list_puts_each_new_file_first() -> None:
    # .symtab: the static r_spin first (locals come first), then the globals
    symtab = _elf("r_spin", "g_rule", "main", "g_spin", "r_step")
    assert gprof_file_list(SYMBOLS, symtab) == [MAIN, GRAMMAR, RUNTIME]
    symtab = _elf("g_rule", "g_spin", "main", "r_spin", "r_step")
    assert gprof_file_list(SYMBOLS, symtab) == [RUNTIME, MAIN, GRAMMAR]


def test_line_symbols_come_after_the_functions() -> None:
    header = "/p/util.h"
    line = Symbol("g_spin", 0x1004, 0x1007, False, False, header, 9, is_line=True)
    symtab = _elf("r_spin", "g_rule", "main", "g_spin", "r_step")
    assert gprof_file_list([*SYMBOLS, line], symtab) == [header, MAIN, GRAMMAR, RUNTIME]


def test_spec_names_the_first_file_of_the_list() -> None:
    files = [MAIN, GRAMMAR, RUNTIME]
    assert named_file("parser.c", files) == GRAMMAR
    assert named_file(RUNTIME, files) == RUNTIME
    assert named_file("other.c", files) is None
    names = [s.name for s in SYMBOLS]

    def chosen(text: str) -> set[str]:
        return {SYMBOLS[i].name for i in table([SymSpec.parse(text)], SYMBOLS, names, files=files)}

    assert chosen("parser.c") == {"g_spin", "g_rule"}
    assert chosen("parser.c:1") == {"g_spin"}
    assert chosen("parser.c:r_spin") == set()  # r_spin is not in the file the spec names
    assert chosen("nosuch.c") == set()
    # without the list (an engine caller that has none): every file of the basename
    assert {SYMBOLS[i].name for i in table([SymSpec.parse("parser.c")], SYMBOLS, names)} == {
        "g_spin",
        "g_rule",
        "r_spin",
        "r_step",
    }


def test_exact_file_is_matched_whole() -> None:
    """A recorded bare `parser.c` (no directory) named by the spec is not `x/parser.c`."""
    bare = Symbol("f", 0x10, 0x1F, True, False, "parser.c", 1)
    other = Symbol("g", 0x20, 0x2F, True, False, "/x/parser.c", 1)
    spec = SymSpec.parse("parser.c").in_files(["parser.c", "/x/parser.c"])
    assert spec.matches(bare) and not spec.matches(other)
