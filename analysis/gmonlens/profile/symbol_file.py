"""`-S FILE`: the routines from an external, `nm`-style symbol table instead of the ELF's `.symtab`.

Observed on gprof 2.40: each line `ADDRESS TYPE NAME` (hex address, one-letter nm class) gives a
symbol; only classes `T` (global) and `t` (static) are taken, every other line (other classes,
undefined symbols without an address, anything unparsable) is skipped silently. The symbols are
then sorted and de-aliased as `.symtab` symbols are (all count as functions), so `nm`'s
alphabetical output works; a file without a single T/t line is an error ("has no symbols"). They
carry no source information: no ` (file)` suffixes, `-C` says `<unknown>:0`, `-A` prints nothing,
`-l` adds no line symbols; `-a` does not drop the `t` ones, and the static-name filter does not
apply (`refresh.part.0` is a routine).

Not reproduced: gprof gives the *last* symbol of such a table an end read from uninitialised
memory, so depending on the table it receives all later samples or none; gmonlens applies the rule
of ordinary tables (none), which matches whenever no sample lies past the last symbol (an `nm`
dump, whose last text symbol is `etext`).
"""

from __future__ import annotations

from gmonlens.common.errors import GmonlensError
from gmonlens.common.files import read_regular
from gmonlens.common.model import ElfSymbol

MAX_TABLE_BYTES = 1 << 28


def read_symbol_file(path: str) -> tuple[tuple[ElfSymbol, ...], bytes]:
    """(symbols in file order, a string table holding their names one after another)."""
    data = read_regular(path, MAX_TABLE_BYTES, "nm-style symbol table")
    symbols: list[ElfSymbol] = []
    strtab = bytearray(b"\0")
    for raw in data.split(b"\n"):
        parts = raw.split()
        if len(parts) < 3 or parts[1] not in (b"T", b"t"):
            continue
        try:
            value = int(parts[0], 16)
        except ValueError:
            continue
        name = parts[2]
        offset = len(strtab)
        strtab += name + b"\0"
        letter = parts[1].decode()
        symbols.append(ElfSymbol(name.decode("utf-8", "surrogateescape"), offset, value, letter, True))
    if not symbols:
        raise GmonlensError(path, "has no symbols (no T or t lines of `nm` output)")
    return tuple(symbols), bytes(strtab)
