"""C++ names for display, demangled as gprof shows them.

gprof demangles with libiberty's demangler (ANSI and parameter lists, no "verbose" expansion of
standard substitutions). GNU binutils' `c++filt -i` runs that same demangler with the same flags,
and it is installed wherever gprof is, so its output matches gprof's byte for byte; a Python
reimplementation (itanium_demangler) or libstdc++'s __cxa_demangle (the cxxfilt package) differ on
details such as `std::string`. Names are sent in one batch per report.

A workspace is untrusted: `c++filt` is looked up only in absolute PATH entries outside the current
directory (an empty or relative entry, which would name a workspace folder, is skipped) and run
by absolute path, with "/" as working directory and a minimal environment.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

_ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}


def trusted_path(path: str | None = None) -> str:
    """The absolute entries of `path` (default $PATH) that are not the current directory or below."""
    try:
        here = os.path.realpath(os.getcwd())
    except OSError:
        here = None
    keep: list[str] = []
    for entry in (os.environ.get("PATH", os.defpath) if path is None else path).split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        real = os.path.realpath(entry)
        if here not in (None, "/") and (real == here or real.startswith(here + os.sep)):
            continue
        keep.append(entry)
    return os.pathsep.join(keep)


def find_tool(name: str) -> str | None:
    """Absolute path of the tool `name` from the trusted PATH entries, or None."""
    import shutil  # imported here: a report without C++ names never needs it

    exe = shutil.which(name, path=trusted_path())
    return os.path.abspath(exe) if exe else None


def _mangled(name: str) -> bool:
    return name.startswith(("_Z", "_GLOBAL_"))


def demangle_all(names: Sequence[str]) -> tuple[list[str], str | None]:
    """Display names for `names` (unchanged where not mangled) and a problem, if any."""
    out = list(names)
    todo = [i for i, n in enumerate(names) if _mangled(n) and "\n" not in n]
    if not todo:
        return out, None
    exe = find_tool("c++filt")
    if exe is None:
        return out, "c++filt (GNU binutils) not found: C++ names are shown mangled"
    import subprocess

    text = "\n".join(names[i] for i in todo) + "\n"
    try:
        res = subprocess.run(
            [exe, "-i"],
            input=text.encode("utf-8", "surrogateescape"),
            capture_output=True,
            cwd="/",
            env=_ENV,
            timeout=60,
            check=True,
        )
    except (OSError, subprocess.SubprocessError) as e:
        return out, f"c++filt failed ({e}): C++ names are shown mangled"
    lines = res.stdout.decode("utf-8", "surrogateescape").split("\n")
    if len(lines) < len(todo):
        return out, "c++filt gave short output: C++ names are shown mangled"
    for i, d in zip(todo, lines[: len(todo)], strict=True):
        out[i] = d
    return out, None
