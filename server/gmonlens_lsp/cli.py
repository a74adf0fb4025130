"""The `gmonlens` entry point: `serve` (the language server, imported only then) and `mcp` (the MCP
server, `gmonlens_mcp`, which imports no pygls) here; every other
command is the engine's (`gmonlens.commands.dispatch`). Nothing on the path of `report`, `diff` or
`export` imports pygls or lsprotocol: this module and the package's `__init__` are all they load
of `gmonlens_lsp`."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "serve":
        from .serve import main as serve_main

        return serve_main(args[1:])
    if args and args[0] == "mcp":
        from gmonlens_mcp.main import main as mcp_main

        return mcp_main(args[1:])
    from gmonlens.commands.dispatch import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
