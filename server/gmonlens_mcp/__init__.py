"""`gmonlens mcp`: the profile as Model Context Protocol tools, for coding agents.

Invariants: nothing here imports pygls or lsprotocol (the modules of `gmonlens_lsp.workspace` it
reuses, discovery/settings/session, import neither); nothing but `rpc.Server` writes to the
protocol's stdout; nothing from the workspace is run and no file of the workspace is written.

Modules: `rpc` (JSON-RPC over stdio, the MCP lifecycle, cancellation), `schema` (the tools'
argument schemas and their validation), `workspace` (which program and profiles, loaded and
reloaded when a file changes), `lookup` (routine names -> routines), `tools` (the definitions),
`handlers`, `figures` and `compare` (the answers), `main` (the command line).
"""
