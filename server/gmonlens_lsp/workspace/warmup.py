"""`python -m gmonlens_lsp.workspace.warmup BINARY [--static-call-graph] [--clones-apart] PROFILE...`: fill the cache for one
binary and profile set (full DWARF index, line table, computed profile, function scopes), at low priority, in a
process of its own so that the server's requests never wait for this work (the GIL)."""

from __future__ import annotations

import contextlib
import os
import sys

from . import cache_entries


def warm(binary: str, profiles: list[str], static_call_graph: bool, clones_apart: bool = False) -> None:
    from gmonlens.loader import load_profile
    from gmonlens.options import AnalysisOptions

    options = AnalysisOptions(static_call_graph=static_call_graph, clones_apart=clones_apart)
    key = cache_entries.profile_key(binary, profiles, options)
    if key is not None and cache_entries.read_profile(key) is None:
        cache_entries.write_profile(key, load_profile(binary, profiles, options))
    dwarf, dkey, cached = cache_entries.load_dwarf(binary)
    if not cached and dwarf.has_debug_info:
        for unit in dwarf.units():
            dwarf.decls_of_unit(unit.offset)
        dwarf.prepare_ranges()
        cache_entries.save_dwarf(dwarf, dkey)
    cache_entries.load_line_table(binary)
    if dwarf.has_debug_info:
        cache_entries.load_scopes(binary, compute=True)


def main(argv: list[str]) -> int:
    with contextlib.suppress(OSError):
        os.nice(10)
    args = [a for a in argv if a not in ("--static-call-graph", "--clones-apart")]
    if not args:
        print(
            "usage: python -m gmonlens_lsp.workspace.warmup BINARY [--static-call-graph] [--clones-apart] PROFILE...",
            file=sys.stderr,
        )
        return 2
    try:
        warm(args[0], args[1:], "--static-call-graph" in argv, "--clones-apart" in argv)
    except Exception as exc:  # the files changed since the load, or cannot be read: the cache waits
        text = str(exc).strip().splitlines()
        print(f"gmonlens warm-up: {text[0] if text else type(exc).__name__}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
