"""A loaded folder's disassembly listings, for every front end: the engine's `DisasmContext` built
once per load and syntax from what the load read already (the code, the histograms, BFD's line
table and gprof -l's names from the disk cache or the DWARF), and the source text of a listing's
lines, read where the folder's index finds the files (`SourceIndex.resolve`: the workspace's copy
of a file the DWARF names by its build path)."""

from __future__ import annotations

import threading

from gmonlens.disasm.render import SourceLine
from gmonlens.disasm.session import DisasmContext, gprof_lines

from .session import LoadedFolder
from .sourcetext import file_lines

_LOCK = threading.Lock()


def context(loaded: LoadedFolder, syntax: str) -> DisasmContext:
    """The folder's listing context for this load (built once per syntax; raises GmonlensError
    when the binary's DWARF cannot be read)."""
    with _LOCK:
        ctx = loaded.disasm.get(syntax)
        if ctx is None:
            program = loaded.program
            other = next(iter(loaded.disasm.values()), None)
            lines = (
                (other.lines, other.names.scopes) if other is not None and other.names is not None else None
            )
            ctx = DisasmContext.of(
                loaded.binary,
                program.image,
                loaded.profile,
                program.gmon().histograms,
                syntax,
                lines or gprof_lines(program),
                program.address_names(),  # objdump's names of PLT entries and GOT slots
            )
            loaded.disasm[syntax] = ctx
        return ctx


def source_text(loaded: LoadedFolder) -> SourceLine:
    """(recorded file, 1-based line) -> that line's text in the file the index resolves it to
    (None when it has none)."""
    index = loaded.index

    def source(file: str, line: int) -> str | None:
        path = index.resolve(file)
        lines = file_lines(path) if path else ()
        return lines[line - 1] if 0 < line <= len(lines) else None

    return source
