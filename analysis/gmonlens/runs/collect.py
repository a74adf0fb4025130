"""Which executable wrote each profile a run left (`gmon.out.<pid>`).

A profile's file name gives its pid; nothing in it names the program. After the process has
exited, /proc/<pid>/exe is gone, so the program is found by the engine's fit rule
(`gmonlens.profile.fit`, the one discovery uses): the histogram's range must be the executable's
code and the arcs must land on its routines and match its calls; a program's own profile fits it
EXACTLY, another program's does not (a different layout moves the range or strands the arcs).
The candidates, tried in this order until one fits exactly (else the first that fits loosely):
1. the programs the helper library's process log names for that pid, the last image first (the
   one that called exit() and wrote the profile; a forked child's is its parent's program);
2. the command itself, when it is an executable;
3. the executables the caller names (`--binary`, or the test binaries `gmonlens test` knows);
4. every other program the log names (a child of a static program, which the helper cannot see).
Without the helper (no C compiler, a static program, `--no-preload`) only 2 and 3 remain: a
profile no candidate fits is reported with its pid and no binary (`unknown_binary`).
Each candidate is read once (one `Program` per executable, shared by all profiles it is tried on).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gmonlens.common.errors import ElfError, GmonFormatError, GmonlensError, reason
from gmonlens.load.program import Program
from gmonlens.profile.fit import Fit
from gmonlens.runs.processes import ProcessHistory

MAX_CANDIDATES = 64  # executables tried for one profile


@dataclass(frozen=True)
class ProcessProfile:
    """One profile file and the process and program that wrote it."""

    path: str
    pid: int
    run: int  # 1-based: which run of the command made it
    binary: str | None  # None: no candidate fits
    exact: bool  # fits the binary exactly (its own run's profile)
    found_by: str  # "process log", "command", "named" (--binary), "" when not found
    samples: int  # histogram samples in this file
    arcs: int  # call-graph arc records in this file
    hz: int  # its histogram's rate (0: none, or a rate of 0)
    rate_zero: bool  # a histogram record with a sampling rate of 0
    problem: str | None = None  # why it cannot be used


@dataclass(frozen=True)
class _Trial:
    program: Program
    fit: Fit


class Identifier:
    """Finds the executable of profiles (module docstring); one per recording."""

    def __init__(
        self,
        command_binary: str | None,
        named: Sequence[str],
        programs: dict[str, Program | None] | None = None,
    ) -> None:
        """`programs`: the executables read so far (real path -> Program, None: not a candidate),
        shared between Identifiers (`gmonlens test`: one per test, each binary read once)."""
        self.command_binary = command_binary
        self.named = tuple(named)
        self._programs: dict[str, Program | None] = {} if programs is None else programs

    def _program(self, path: str) -> Program | None:
        real = os.path.realpath(path)
        if real not in self._programs:
            program = Program(real)
            try:
                program.image  # noqa: B018  # read once: an executable with symbols, or not a candidate
            except (GmonlensError, OSError):
                self._programs[real] = None
            else:
                self._programs[real] = program
        return self._programs[real]

    def _candidates(self, history: ProcessHistory | None, logged: Iterable[str]) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        if history is not None:
            out += [(p, "process log") for p in reversed(history.programs)]
        if self.command_binary:
            out.append((self.command_binary, "command"))
        out += [(p, "named") for p in self.named]
        out += [(p, "process log") for p in logged]
        seen: set[str] = set()
        unique = []
        for path, how in out:
            real = os.path.realpath(path.removesuffix(" (deleted)"))
            if real not in seen:
                seen.add(real)
                unique.append((real, how))
        return unique[:MAX_CANDIDATES]

    def identify(
        self, path: str, pid: int, run: int, history: ProcessHistory | None, logged: Iterable[str]
    ) -> ProcessProfile:
        """The program that wrote `path` (the profile of process `pid`)."""
        loose: tuple[str, str, _Trial] | None = None
        problem = None
        for candidate, how in self._candidates(history, logged):
            program = self._program(candidate)
            if program is None:
                continue
            trial = program.with_profiles([path])
            try:
                fit = trial.fit()
            except GmonFormatError as e:
                problem = problem or reason(e)
                continue
            except ElfError:
                continue
            if fit.exact:
                return _found(path, pid, run, candidate, how, _Trial(trial, fit))
            if fit.fits and loose is None:
                loose = (candidate, how, _Trial(trial, fit))
            elif problem is None and fit.errors and how != "process log":
                problem = fit.errors[0]
        if loose is not None:
            return _found(path, pid, run, loose[0], loose[1], loose[2])
        why = problem or "no executable known to this recording fits it"
        return ProcessProfile(path, pid, run, None, False, "", 0, 0, 0, False, f"binary not found: {why}")


def _found(path: str, pid: int, run: int, binary: str, how: str, trial: _Trial) -> ProcessProfile:
    data = trial.program.gmon()
    samples = sum(sum(h.counts) for h in data.histograms)
    rate_zero = any(h.prof_rate == 0 for h in data.histograms)
    return ProcessProfile(
        path, pid, run, binary, trial.fit.exact, how, samples, len(data.arcs), data.hz, rate_zero
    )
