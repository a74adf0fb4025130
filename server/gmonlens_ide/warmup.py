"""`python -m gmonlens_ide.warmup BINARY [--static-call-graph] [--clones-apart] PROFILE...`: fill the cache for one
binary and profile set (full DWARF index, both line tables, both kinds of function scopes, and the computed profile
when the server could not write it), at low priority, in a
process of its own so that the server's requests never wait for this work (the GIL)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import TYPE_CHECKING

from gmonlens.common.errors import reason

from . import cache_entries

if TYPE_CHECKING:
    from gmonlens.load.program import Program


def warm(binary: str, profiles: list[str], static_call_graph: bool, clones_apart: bool = False) -> None:
    """Each file read once (`Program`): what the cache lacks is computed from those bytes, one
    entry after the other, each written as soon as it is made and let go of before the next (this
    process's peak is its largest step, not their sum). The computed profile is the server's to
    write (it has it in memory: `reload`); it is computed here only when the cache still lacks it
    (the server could not write it), so that a second start finds every entry."""
    from gmonlens.load.program import Program

    program = Program(binary, profiles)
    _warm_profile(program, static_call_graph, clones_apart)
    program.complete_dwarf()
    has_debug_info = program.dwarf().has_debug_info
    program.forget_dwarf()
    program.store_line_tables()
    if has_debug_info:
        program.store_scopes()


def _warm_profile(program: Program, static_call_graph: bool, clones_apart: bool) -> None:
    from gmonlens.common.options import AnalysisOptions
    from gmonlens.load.loader import load_profile

    options = AnalysisOptions(static_call_graph=static_call_graph, clones_apart=clones_apart)
    key = cache_entries.profile_key(program, options)
    if key is not None and not cache_entries.has_profile(key):
        cache_entries.write_profile(key, load_profile(program, options=options))


MAX_CONCURRENT = 2  # warm-up processes running at once, over all folders (the others wait)
_MEMORY_FLOOR = 1 << 30
_MEMORY_PER_BYTE = 96  # address space per byte of the executable on disk (a 10 MB program: ~0.6 GB)


def memory_limit(binary: str) -> int:
    """The address space (bytes) a warm-up of `binary` may use: what an honest program of its size
    on disk needs, with room; a hostile one fails with MemoryError instead of swapping."""
    from gmonlens.binary.budget import stored_size

    try:
        st = os.stat(binary)
    except OSError:
        return _MEMORY_FLOOR
    return _MEMORY_FLOOR + _MEMORY_PER_BYTE * stored_size(st.st_size, getattr(st, "st_blocks", 0))


def _limit_memory(limit: int) -> None:
    import resource

    with contextlib.suppress(ValueError, OSError):
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _end_with(parent: int) -> None:
    """End this process when `parent` (the server) ends, however it ends (SIGKILL included):
    Linux's parent-death signal; gone already: end now."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os._exit(0)


def main(argv: list[str]) -> int:
    """`[--max-memory=BYTES] [--parent=PID] BINARY [--static-call-graph] PROFILE...`; the limit
    is set on this process (RLIMIT_AS) before anything is read; with `--parent`, the process ends
    when that one does."""
    for a in argv:
        if a.startswith("--parent=") and a[9:].isdigit():
            _end_with(int(a[9:]))
    with contextlib.suppress(OSError):
        os.nice(10)
    from gmonlens.common import mallocpolicy

    mallocpolicy.apply()  # one step's freed memory reused by the next (see the module)
    for a in argv:
        if a.startswith("--max-memory=") and a[13:].isdigit():
            _limit_memory(int(a[13:]))
    flags = ("--static-call-graph", "--clones-apart")
    args = [a for a in argv if a not in flags and not a.startswith(("--max-memory=", "--parent="))]
    if not args:
        print(
            "usage: python -m gmonlens_ide.warmup [--max-memory=BYTES] BINARY "
            "[--static-call-graph] [--clones-apart] PROFILE...",
            file=sys.stderr,
        )
        return 2
    # written before the work: once memory runs out, formatting a message may fail too
    oom = os.fsencode(f"gmonlens warm-up: {args[0]}: out of memory (address-space limit)\n")
    try:
        warm(args[0], args[1:], "--static-call-graph" in argv, "--clones-apart" in argv)
    except MemoryError:
        os.write(2, oom)
        return 1
    except Exception as exc:  # the files changed since the load, or cannot be read: the cache waits
        print(f"gmonlens warm-up: {args[0]}: {reason(exc)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
