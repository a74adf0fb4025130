"""The command line's front ends over the engine: `report` (gprof's options: `gprof_args` over
`gnu_getopt`), `diff`, `export`; `dispatch.run` picks one. None imports pygls or lsprotocol."""
