"""Nothing from a workspace runs: the server's own import path, and every process it starts.

Opening a folder must be safe for a repository just cloned. The working directory of an editor's
server is usually the workspace, so:
- `clean_sys_path()` (called first thing by `python -m gmonlens_lsp` and `gmonlens serve`) drops
  the working directory and relative entries from `sys.path`, so modules imported later (yaml,
  hashlib, elftools...) cannot come from it. (`python -m` itself imports the `gmonlens_lsp`
  package from the working directory first: editors must start `gmonlens serve` or
  `python -I -m gmonlens_lsp serve`; see PROTOCOL.md.)
- `neutral_process()`: the server then works from "/" with a PATH of absolute directories only,
  so no relative lookup (a tool, a file) can land in the workspace.
- `python_command()`: helper processes are `sys.executable -I` (isolated: no PYTHON* variables, no
  script or working directory on sys.path, no user site-packages), started from "/", given the
  server's own (cleaned) import path explicitly: this works from a venv and from the VS Code
  extension's bundle (python/launch.py puts the bundle on sys.path) alike.
"""

from __future__ import annotations

import os
import sys

# argv: -c BOOT N PATH_1..PATH_N MODULE ARG... -> sys.path[:0] = PATHS; MODULE.main([ARG...])
BOOT = (
    "import sys, importlib\n"
    "n = int(sys.argv[1])\n"
    "sys.path[:0] = sys.argv[2:2 + n]\n"
    "module, args = sys.argv[2 + n], sys.argv[3 + n:]\n"
    "sys.argv = [module, *args]\n"
    "sys.exit(importlib.import_module(module).main(args))\n"
)


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def clean_sys_path() -> None:
    """Drop "", relative entries and the working directory from sys.path (in place)."""
    try:
        cwd: str | None = os.getcwd()
    except OSError:
        cwd = None
    keep = [
        p
        for p in sys.path
        if isinstance(p, str) and p and os.path.isabs(p) and not (cwd is not None and _same(p, cwd))
    ]
    sys.path[:] = keep


def safe_path_variable(value: str | None) -> str:
    """PATH without empty or relative entries (which name the working directory)."""
    parts = [p for p in (value or "").split(os.pathsep) if p and os.path.isabs(p)]
    return os.pathsep.join(parts) or "/usr/bin:/bin"


def neutral_process() -> None:
    """Make the server's own process neutral: cleaned sys.path and PATH, working directory "/"."""
    clean_sys_path()
    os.environ["PATH"] = safe_path_variable(os.environ.get("PATH"))
    os.chdir("/")


def child_env() -> dict[str, str]:
    """The environment of a helper process: ours without PYTHON* variables, PATH made safe."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PATH"] = safe_path_variable(env.get("PATH"))
    return env


def python_command(module: str, args: list[str]) -> list[str] | None:
    """argv running `module.main(args)` in an isolated interpreter with our import path (None when
    the interpreter is unknown)."""
    exe = sys.executable
    if not exe or not os.path.isabs(exe):
        return None
    paths = [p for p in sys.path if isinstance(p, str) and p and os.path.isabs(p)]
    return [exe, "-I", "-c", BOOT, str(len(paths)), *paths, module, *args]
