"""Profiles for the rules: the profile sets a budget file names, read through the engine's loader
(I/O, through `load`).

Each binary is read once (`Program.with_profiles` shares its symbols and code among the profile
sets of one build: the tests of a `gmonlens test` folder, the sizes of a scaling rule). Profiles
are computed with gprof's default options, statics labelled with gprof's file names (what its
index prints, and what `names` matches). A profile that is unreadable or written by another
program raises GmonlensError (the engine's fit rule, `gmonlens.profile.fit`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from gmonlens.check.names import RoutineNames
from gmonlens.check.rules import ProfileSource
from gmonlens.check.test_runs import TestRun, read_test_folder, runs_of
from gmonlens.common.errors import GmonlensError
from gmonlens.common.model import Profile
from gmonlens.common.options import AnalysisOptions
from gmonlens.load.loader import Program, load


@dataclass(frozen=True)
class ProfileSet:
    """Profile files of one binary checked together: the whole run (`test` None) or one test's."""

    binary: str
    files: tuple[str, ...]
    test: str | None = None


class Profiles:
    """Loads profile sets, each binary read once; keeps the name index of each binary."""

    def __init__(self, programs: Sequence[Program] = ()) -> None:
        """`programs`: executables already read (a server's load): their symbols and code are
        shared with the profile sets of the same file, not read again."""
        self._programs: dict[str, Program] = {os.path.realpath(p.path): p for p in programs}
        self._names: dict[str, RoutineNames] = {}

    def _program(self, binary: str, files: Sequence[str]) -> Program:
        key = os.path.realpath(binary)
        first = self._programs.get(key)
        if first is None:
            first = self._programs[key] = Program(binary, files)
            return first
        return first.with_profiles(files)

    def load(self, binary: str, files: Sequence[str]) -> Profile:
        """The profile of `files` (summed) for `binary`; GmonlensError when it cannot be had."""
        return load(self._program(binary, files), (), AnalysisOptions(), gprof_files=True).profile

    def names(self, binary: str, profile: Profile) -> RoutineNames:
        """The routine names of `binary` (built from its first profile: ids are the same in all)."""
        key = os.path.realpath(binary)
        found = self._names.get(key)
        if found is None:
            found = self._names[key] = RoutineNames(profile, binary)
        return found


def profile_sets(binary: str, source: ProfileSource) -> tuple[tuple[ProfileSet, ...], bool]:
    """The sets `source` gives for `binary` and whether they are per test (a `gmonlens test`
    folder: the tests whose profiles are of `binary`). GmonlensError when the folder cannot be
    read or has no test of that binary."""
    if source.folder is None:
        return (ProfileSet(binary, source.files),), False
    runs: tuple[TestRun, ...] = runs_of(read_test_folder(source.folder), binary)
    if not runs:
        raise GmonlensError(source.folder, f"no test has profiles of {binary}")
    return tuple(ProfileSet(binary, r.profiles, r.name) for r in runs), True


def summed(sets: Sequence[ProfileSet]) -> ProfileSet:
    """One set of all the files of `sets` (a whole suite from its tests)."""
    return ProfileSet(sets[0].binary, tuple(f for s in sets for f in s.files))
