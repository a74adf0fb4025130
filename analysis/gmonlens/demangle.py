"""C++ names for display, demangled as gprof shows them.

gprof demangles with libiberty's demangler (ANSI and parameter lists, no "verbose" expansion of
standard substitutions). GNU binutils' `c++filt -i` runs that same demangler with the same flags,
and it is installed wherever gprof is, so its output matches gprof's byte for byte; a Python
reimplementation (itanium_demangler) or libstdc++'s __cxa_demangle (the cxxfilt package) differ on
details such as `std::string`. Names are sent in one batch per report.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence


def _mangled(name: str) -> bool:
    return name.startswith(("_Z", "_GLOBAL_"))


def demangle_all(names: Sequence[str]) -> tuple[list[str], str | None]:
    """Display names for `names` (unchanged where not mangled) and a problem, if any."""
    out = list(names)
    todo = [i for i, n in enumerate(names) if _mangled(n) and "\n" not in n]
    if not todo:
        return out, None
    exe = shutil.which("c++filt")
    if exe is None:
        return out, "c++filt (GNU binutils) not found: C++ names are shown mangled"
    text = "\n".join(names[i] for i in todo) + "\n"
    try:
        res = subprocess.run(
            [exe, "-i"],
            input=text.encode("utf-8", "surrogateescape"),
            capture_output=True,
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
