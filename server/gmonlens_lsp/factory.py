"""`create_server()`: a fresh language server with every feature registered (each feature module
has `register(server)`). Tests build servers here; `serve` runs one."""

from __future__ import annotations

from .features import (
    baseline_commands,
    call_graph,
    call_hierarchy,
    code_lens,
    disassembly,
    documents,
    flame_graph,
    hover,
    lifecycle,
    line_heat,
    profile_commands,
    record,
    tests,
    watch,
    workspace_symbols,
)
from .server import GmonlensServer

FEATURES = (
    lifecycle,
    code_lens,
    hover,
    call_hierarchy,
    workspace_symbols,
    profile_commands,
    baseline_commands,
    watch,
    line_heat,
    call_graph,
    flame_graph,
    disassembly,
    record,
    documents,
    tests,
)


def create_server() -> GmonlensServer:
    """A fresh server with every feature registered."""
    server = GmonlensServer()
    for feature in FEATURES:
        feature.register(server)
    return server
