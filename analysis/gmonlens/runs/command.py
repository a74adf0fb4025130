"""The command `gmonlens record` runs: COMMAND resolved as execvp(3) resolves it, and what the file
is (an ELF executable, a `#!` script and its interpreter, or something else).

Resolution: a COMMAND with a `/` is a path (relative to the run's working directory); otherwise
each directory of PATH is tried in order (an empty entry is the working directory, as execvp
reads it; the PATH of the environment the command will run with, else `os.confstr`'s default),
and the first regular file there that we may execute is taken. Only the first bytes of the file
are read here (the `#!` line); what is inside an ELF executable is the `Program`'s to read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gmonlens.common.errors import GmonlensError
from gmonlens.load.program import program_head

SHEBANG_BYTES = 256  # the kernel reads at most this much of a #! line (BINPRM_BUF_SIZE)


class CommandNotFound(GmonlensError):
    """COMMAND names no executable file (the shell's exit status 127)."""


class NotExecutable(GmonlensError):
    """COMMAND names a file that cannot be executed (the shell's exit status 126)."""


@dataclass(frozen=True)
class ResolvedCommand:
    """What will be executed: `path` (absolute) with `argv` (argv[0] as given)."""

    argv: tuple[str, ...]
    path: str
    kind: str  # "elf", "script" (a #! line) or "other"
    interpreter: tuple[str, ...] = ()  # a script's #! line: the interpreter and its argument


def _default_path() -> str:
    try:
        return os.confstr("CS_PATH") or "/bin:/usr/bin"
    except (ValueError, OSError):
        return "/bin:/usr/bin"


def _runnable(path: str) -> bool:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(st.st_mode) and os.access(path, os.X_OK)


def find_program(name: str, cwd: str, env: Mapping[str, str]) -> str | None:
    """The absolute path `name` runs (module docstring), or None."""
    if "/" in name:
        path = os.path.normpath(os.path.join(cwd, name))
        return path if _runnable(path) else None
    for entry in env.get("PATH", _default_path()).split(os.pathsep):
        path = os.path.normpath(os.path.join(cwd, entry or ".", name))
        if _runnable(path):
            return path
    return None


def _kind(path: str) -> tuple[str, tuple[str, ...]]:
    """("elf" | "script" | "other", the #! line's words) from the file's first bytes."""
    try:
        head = program_head(path, SHEBANG_BYTES)
    except GmonlensError as e:
        raise NotExecutable(path, e.message) from None
    if head[:4] == b"\x7fELF":
        return "elf", ()
    if head[:2] == b"#!":
        line = head[2:].split(b"\n", 1)[0].strip()
        # Linux splits the line once: the interpreter, then the rest as one argument
        words = line.split(None, 1)
        return "script", tuple(w.decode("utf-8", "surrogateescape") for w in words)
    return "other", ()


def resolve_command(argv: Sequence[str], cwd: str, env: Mapping[str, str]) -> ResolvedCommand:
    """Resolve `argv[0]`; raises CommandNotFound or NotExecutable (one line naming it)."""
    if not argv or not argv[0]:
        raise CommandNotFound(None, "no command given (gmonlens record -- COMMAND [ARGS...])")
    name = argv[0]
    path = find_program(name, cwd, env)
    if path is None:
        if "/" in name and os.path.exists(os.path.join(cwd, name)):
            raise NotExecutable(name, "is not an executable regular file (chmod +x?)")
        where = "" if "/" in name else " in PATH"
        raise CommandNotFound(name, f"command not found{where}")
    kind, interpreter = _kind(path)
    return ResolvedCommand(tuple(argv), path, kind, interpreter)


def interpreter_program(command: ResolvedCommand, cwd: str, env: Mapping[str, str]) -> str | None:
    """The program a script's #! line runs: the interpreter, or for `#!/usr/bin/env NAME` the
    NAME env finds in PATH (None when it names none)."""
    if command.kind != "script" or not command.interpreter:
        return None
    first = command.interpreter[0]
    if os.path.basename(first) == "env" and len(command.interpreter) > 1:
        words = [w for w in command.interpreter[1].split() if not w.startswith("-")]
        return find_program(words[0], cwd, env) if words else None
    return first if _runnable(first) else None
