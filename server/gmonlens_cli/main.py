"""The `gmonlens` entry point (`python -m gmonlens_cli` too): `serve` (the language server,
`gmonlens_lsp`, imported only then), `mcp` (the MCP server, `gmonlens_mcp`, which imports no
pygls); every other command is the engine's (`gmonlens.commands.dispatch`). The only module that
knows both adapters: they never import each other. Nothing on the path of `report`, `diff`,
`export` or `disasm` imports pygls, lsprotocol or either adapter."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "serve":
        from gmonlens_lsp.serve import main as serve_main

        return serve_main(args[1:])
    if args and args[0] == "mcp":
        from gmonlens_mcp.main import main as mcp_main

        return mcp_main(args[1:])
    from gmonlens.commands.dispatch import run

    return run(args)
