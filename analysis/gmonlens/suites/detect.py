"""Which test runner `gmonlens test -- RUNNER [ARGS...]` names (`--runner` says it outright):

- `ctest` (also `ctest3`, any path ending so): CTest;
- `meson test ...`: meson;
- a file whose name ends `.yaml` or `.yml`: a plain list of commands (`command_list.py`);
- an ELF executable that links GoogleTest (a symbol of namespace `testing`, `_ZN7testing...`)
  or Catch2 (`_ZN5Catch...`): that framework's binary (its symbol table, else its dynamic
  symbols, read through `Program`; nothing is run to tell).
Anything else is refused with the line that says how to name the runner.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from gmonlens.common.errors import GmonlensError, UsageError
from gmonlens.load.program import Program
from gmonlens.runs.command import resolve_command

RUNNERS = ("ctest", "gtest", "catch2", "meson", "commands")
_GTEST = "_ZN7testing"
_CATCH2 = "_ZN5Catch"


def _framework(names: Sequence[str]) -> str | None:
    if any(n.startswith(_GTEST) for n in names):
        return "gtest"
    if any(n.startswith(_CATCH2) for n in names):
        return "catch2"
    return None


def framework_of(path: str, programs: dict[str, Program | None] | None = None) -> str | None:
    """`gtest`, `catch2` or None for the ELF executable at `path` (module docstring); the Program
    read is kept in `programs` (by real path) for the rest of the run."""
    real = os.path.realpath(path)
    program = Program(real)
    if programs is not None:
        program = programs.setdefault(real, program) or program
    try:
        found = _framework([s.name for s in program.image.symbols])
    except GmonlensError:
        found = None
    if found is None:
        try:
            found = _framework(program.dynamic_symbol_names())
        except GmonlensError:
            return None
    return found


def detect(
    argv: Sequence[str],
    cwd: str,
    env: Mapping[str, str],
    forced: str | None = None,
    programs: dict[str, Program | None] | None = None,
) -> str:
    """The runner `argv` names (module docstring); UsageError when none can be told."""
    if forced is not None:
        if forced not in RUNNERS:
            raise UsageError(None, f"--runner takes {', '.join(RUNNERS)}, not {forced!r}")
        return forced
    if not argv:
        raise UsageError(None, "no test runner given (gmonlens test [options] -- RUNNER [ARGS...])")
    base = os.path.basename(argv[0])
    if base in ("ctest", "ctest3"):
        return "ctest"
    if base.startswith("meson") and len(argv) > 1 and argv[1] == "test":
        return "meson"
    if base.endswith((".yaml", ".yml")):
        return "commands"
    command = resolve_command(argv, cwd, env)
    found = framework_of(command.path, programs) if command.kind == "elf" else None
    if found is None:
        raise UsageError(
            None,
            f"{argv[0]} is not a test runner gmonlens knows (ctest, meson test, a GoogleTest or Catch2 "
            "binary, a .yaml list of commands): name it with --runner",
        )
    return found
