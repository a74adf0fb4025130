"""Which program and profiles the tools answer about, loaded once and reloaded when a file changes.

Contract of `Workspace.view()` (called by every tool, on the one worker thread):
- The folder's settings are `gmonlens.yaml`'s (`settings.read_config_file`); `binary`/`profiles`
  given on the command line replace the file's. Discovery and loading are the language server's
  (`gmonlens_lsp.workspace`: `discovery`, `session.load_folder`): the same program, the same
  profiles, the same figures, the computed profile read from the engine's disk cache.
- Before answering, each input is stat'ed again (device, inode, size, mtime in ns): the profiles,
  the binary, `gmonlens.yaml`, a configured baseline, and (without a `profiles` setting) every
  file where discovery would look for a profile. Any change, a file appearing or disappearing
  included, loads again; so does every call after a load that failed.
- A profile being written (open for writing, or changed while it was read: `gmonlens_ide.writes`)
  is not loaded: the last complete load answers, with a health note saying a new profile is being
  written (none yet: a ToolFailure saying so); the next call looks again.
- A computed profile not yet in the disk cache is written there (as the language server's warm-up
  does); nothing else is written and nothing of the workspace is run.
- A load that fails raises `ToolFailure` with its one-line problem.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

# The workspace modules (yaml, elftools, the DWARF index) load with the first profile, on the
# worker thread, so that `initialize` and `tools/list` are answered without them.
if TYPE_CHECKING:
    from gmonlens.common.model import Profile
    from gmonlens_ide.session import LoadedFolder, LoadOutcome
    from gmonlens_ide.settings import Settings

from .wording import reworded

CONFIG_FILE = "gmonlens.yaml"  # gmonlens_ide.settings.CONFIG_FILE


class ToolFailure(Exception):
    """A tool cannot answer: `message` is one line for the agent; `data` extra structured facts."""

    def __init__(self, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.data = data or {}


Stamp = tuple[tuple[str, int, int, int, int], ...]


def stamp(paths: list[str]) -> Stamp:
    """(path, device, inode, size, mtime ns) of each path; -1s when missing."""
    out = []
    for p in paths:
        try:
            st = os.stat(p)
            out.append((p, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((p, -1, -1, -1, -1))
    return tuple(out)


@dataclass
class View:
    """One load and what the tools derived from it (filled lazily, dropped with the load)."""

    loaded: LoadedFolder
    outcome: LoadOutcome
    settings_problems: tuple[str, ...]
    derived: dict[str, Any] = field(default_factory=dict)

    @property
    def profile(self) -> Profile:
        return self.loaded.profile

    @property
    def folder(self) -> str:
        return self.loaded.folder

    def rel(self, path: str | None) -> str | None:
        """`path` relative to the workspace folder when inside it, else as it is."""
        if not path:
            return path
        rel = os.path.relpath(path, self.folder) if os.path.isabs(path) else path
        return path if rel.startswith("..") else rel


class Workspace:
    """The program and profiles of one folder (explicit files, or found as the language server
    finds them), loaded on demand (module contract)."""

    def __init__(
        self, folder: str, binary: str | None = None, profiles: tuple[str, ...] = (), trusted: bool = False
    ) -> None:
        self.folder = os.path.abspath(folder)
        self.trusted = trusted  # unless set, gmonlens.yaml's paths leading outside the folder are dropped
        # files named on the command line: relative to the folder (a client starts its servers in
        # a directory of its own, not the project's)
        self.binary = self._path(binary) if binary else None
        self.profiles = tuple(self._path(p) for p in profiles)
        self._view: View | None = None
        self._stamp: Stamp | None = None
        self._problem: str | None = None
        self._last: View | None = None  # the last complete load (answered while another is written)
        self._writing: list[str] = []  # files being written at the last look
        self.generation = 0
        self.loads = 0  # how many times the profile was loaded (tests, bench)

    def _path(self, path: str) -> str:
        return os.path.normpath(os.path.join(self.folder, os.path.expanduser(path)))

    def settings(self) -> tuple[Settings, list[str]]:
        from gmonlens_ide.settings import Settings, fence, read_config_file

        settings, problems = read_config_file(self.folder, self.trusted)
        if not self.trusted:  # as the language server does for an untrusted workspace
            settings, fenced = fence(self.folder, settings, Settings())
            problems = problems + fenced
        problems = [reworded(p) for p in problems]
        settings = replace(settings, trusted=self.trusted)
        if self.binary:
            settings = replace(settings, binary=self.binary)
        if self.profiles:
            settings = replace(settings, profiles=tuple(glob.escape(p) for p in self.profiles))
        return settings, problems

    def _watched(self, settings: Settings, inputs: tuple[str, ...]) -> list[str]:
        from gmonlens_ide.discovery import PROFILE_PATTERNS, search_dirs
        from gmonlens_ide.recordings import manifests

        paths = [os.path.join(self.folder, CONFIG_FILE), *self.profiles, *inputs]
        if self.binary:
            paths.append(self.binary)
        if not settings.profiles:  # where a new default profile (or a recording) would appear
            dirs = search_dirs(self.folder)
            for d in dirs:
                for pattern in PROFILE_PATTERNS:
                    paths += glob.glob(os.path.join(glob.escape(d), pattern))
            paths += manifests(dirs)
        return sorted(set(paths))

    def _fresh(self) -> bool:
        view = self._view
        if view is None or self._stamp is None:
            return False
        return stamp(self._watched(view.loaded.settings, view.outcome.inputs)) == self._stamp

    def view(self) -> View:
        """The current load (reloaded first when an input changed); raises ToolFailure. While a
        profile is being written (`gmonlens_ide.writes`), the last complete load is answered
        with a health note saying so (none yet: a ToolFailure saying so)."""
        if self._fresh():
            self._writing = []
        else:
            self._load()
        if self._writing:
            note = f"a new profile is being written ({', '.join(self._writing)}): these are the last complete profile's figures"
            if self._last is None:
                raise ToolFailure(
                    f"{self.folder}: a new profile is being written ({', '.join(self._writing)}); ask again when the program has finished"
                )
            return replace(self._last, settings_problems=(*self._last.settings_problems, note))
        if self._view is None:
            raise ToolFailure(self._problem or f"{self.folder}: no profile loaded")
        return self._view

    def _load(self) -> None:
        from gmonlens_ide import cache_entries as cache
        from gmonlens_ide import writes
        from gmonlens_ide.session import load_folder

        settings, problems = self.settings()
        previous = self._view.outcome.inputs if self._view else ()
        watched = self._watched(settings, previous)
        self._writing = writes.busy(watched)
        if self._writing:  # a profile (or the binary) is being written: do not read it yet
            return
        before = {s[0]: s for s in stamp(watched)}
        self.generation += 1
        self.loads += 1
        outcome = load_folder(self.folder, settings, self.generation)
        self._writing = list(outcome.writing)
        if self._writing:
            return
        self._view, self._stamp = None, None
        if outcome.loaded is None:
            self._problem = reworded(outcome.blocking or f"{self.folder}: no profile loaded")
            return
        loaded = outcome.loaded
        if not loaded.profile_cached and loaded.profile_key:
            cache.write_profile(loaded.profile_key, loaded.profile)
        said = replace(outcome, warnings=tuple(map(reworded, outcome.warnings)),
                       choice=reworded(outcome.choice) if outcome.choice else None)  # fmt: skip
        self._view, self._problem = View(loaded, said, tuple(problems)), None
        self._last = self._view
        after = stamp(self._watched(settings, outcome.inputs))
        # a file rewritten while it was being read: keep no stamp, so the next call loads again
        if not any(s[0] in before and before[s[0]] != s for s in after):
            self._stamp = after
