"""One test's profile of one binary, summed and reduced to what a suite view needs: each routine
it reached with its calls and samples (I/O, through `load`). The one rule for a test's figures:
`gmonlens test` writes them to its index, the editor and the MCP server compute them from the
same files (`Summer.figure`), so they agree.

- Summed as gprof sums gmon.out files (`load.loader.load` over the test's files), with gprof's
  default options; routines named as gprof's index names them (`name`, statics `name (file.c)`;
  a name two routines share gets ` #2`, ` #3` after it, in address order).
- A routine is reached when it was called (calls > 0: gprof's `calls+self`, recursive calls
  included), called a routine (an arc with a count leaves it) or got clock samples.
- `total_samples` is gprof's call-graph time: the routine's own samples and its children's
  propagated to it (`prop_self_ticks + prop_child_ticks`).
Each binary is read once per `Summer` (`Program.with_profiles` shares it between tests); not
thread-safe: one thread uses a Summer.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from gmonlens.common.errors import GmonlensError, reason
from gmonlens.common.model import Profile
from gmonlens.common.options import AnalysisOptions
from gmonlens.load.loader import load
from gmonlens.load.program import Program
from gmonlens.suites.model import BinaryProfile, RoutineCalls


def routine_name(display: str, is_static: bool, file: str | None) -> str:
    """The name gprof's index prints: `name (file)` for a static with a known file."""
    return f"{display} ({os.path.basename(file)})" if is_static and file else display


def reached(profile: Profile) -> tuple[RoutineCalls, ...]:
    """The routines `profile` reached, with their figures (module docstring), in address order."""
    callers = {a.parent for a in profile.arcs if a.count > 0}
    out: list[RoutineCalls] = []
    seen: dict[str, int] = {}
    for r in profile.routines:
        if r.is_line:
            continue
        calls = r.calls + r.self_calls
        if calls <= 0 and r.self_ticks <= 0 and r.id not in callers:
            continue
        name = routine_name(r.display_name, r.is_static, r.file)
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name} #{seen[name]}"
        out.append(RoutineCalls(name, r.address, calls, r.self_ticks, r.prop_self_ticks + r.prop_child_ticks))
    return tuple(out)


class Summer:
    """Sums tests' profiles, each binary read once (module docstring). `programs` (real path ->
    Program, None: not a program) may be shared with whatever else reads the binaries (the
    identification of the profiles, `runs.collect.Identifier`)."""

    def __init__(self, programs: dict[str, Program | None] | None = None) -> None:
        self._programs: dict[str, Program | None] = {} if programs is None else programs

    def program(self, binary: str, files: Sequence[str]) -> Program:
        key = os.path.realpath(binary)
        base = self._programs.get(key)
        if base is None:
            base = self._programs[key] = Program(key)
        return base.with_profiles(files)

    def figure(self, binary: str, files: Sequence[str], pids: Sequence[int] = ()) -> BinaryProfile:
        """`files` (all of `binary`) summed; never raises for bad input: `problem` says why
        nothing could be computed."""
        try:
            loaded = load(self.program(binary, files), (), AnalysisOptions(), gprof_files=True)
        except (GmonlensError, OSError, ValueError) as e:
            return BinaryProfile(binary, tuple(files), tuple(pids), 0.0, 0, (), reason(e))
        p = loaded.profile
        return BinaryProfile(binary, tuple(files), tuple(pids), p.total_ticks, p.hz, reached(p))
