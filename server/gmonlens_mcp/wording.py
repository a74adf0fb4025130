"""Problems worded for `gmonlens mcp`: the editor-neutral layer words a fix as the language
server's user applies it (a client setting, VS Code's workspace trust); this server has neither,
and says its own (gmonlens.yaml, its command line, `--trust-workspace`)."""

from __future__ import annotations

_COMMAND_LINE = "(`gmonlens mcp --workspace DIR BINARY PROFILE...`)"
TRUST = "start `gmonlens mcp` with --trust-workspace"


def _fixes() -> tuple[tuple[str, str], ...]:
    # imported when a problem is worded (the workspace modules load with the first profile)
    from gmonlens_ide.discovery import FIX_BINARY, FIX_PROFILES
    from gmonlens_ide.settings import TRUST_FIX

    return (
        (FIX_BINARY, f"set `binary` in gmonlens.yaml, or name the program and its profiles {_COMMAND_LINE}"),
        (
            FIX_PROFILES,
            f"set `profiles` in gmonlens.yaml, or name the program and its profiles {_COMMAND_LINE}",
        ),
        (TRUST_FIX, f"({TRUST})"),
    )


def reworded(text: str) -> str:
    """`text` with the language server's fixes replaced by this server's."""
    for lsp, mcp in _fixes():
        text = text.replace(lsp, mcp)
    return text
