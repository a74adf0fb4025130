"""Line heat of one loaded profile, indexed by source file on this machine (no LSP types here).

Contract:
- Computed once per load (`HeatHolder.get`, thread-safe), from the engine's `compute_line_heat`
  over the load's histogram (`Program.gmon`: the profile files as the load read them; a cached
  `Profile` keeps no samples) and the line table the `SourceIndex` already holds.
- Lines are 1-based; seconds are ticks / hz; percent is of gprof's total time (the flat profile's
  base), so the figures of one routine's lines add up to its flat-profile self time.
- `FileHeat.between(first, last)` answers a range by bisection (inlay hints ask per visible range).
- Inlined copies (per inlined function: ticks and the routines holding the copies) need every
  DWARF scope; they come from the disk cache that the warm-up subprocess fills (`Program.scopes`),
  or are computed here when there is no cache.
"""

from __future__ import annotations

import logging
import os
import threading
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gmonlens.common.demangle import demangle_all
from gmonlens.common.errors import GmonlensError
from gmonlens.common.model import HistogramRecord, Profile
from gmonlens.dwarf.line_table import LineTable
from gmonlens.load.program import Program
from gmonlens.profile.line_heat import InlinedCopies, LineHeat, compute_line_heat, inlined_copies

from .srcnames import source_name

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class HotLine:
    line: int  # 1-based
    seconds: float | None  # None without a sampling rate
    percent: float  # of the total time
    routine: str  # display name of the routine holding most of the line's time
    routines: tuple[tuple[str, float | None], ...]  # (display name, seconds), most first
    samples: float = 0.0  # histogram samples credited to the line (fractional with split bins)


@dataclass(frozen=True)
class FileHeat:
    path: str
    lines: tuple[HotLine, ...]  # by line
    numbers: tuple[int, ...] = field(repr=False)

    def between(self, first: int, last: int) -> tuple[HotLine, ...]:
        """Lines first..last (1-based, inclusive)."""
        return self.lines[bisect_left(self.numbers, first) : bisect_right(self.numbers, last)]


@dataclass(frozen=True)
class HeatIndex:
    files: dict[str, FileHeat]  # normalised real path -> heat
    total_seconds: float | None
    heat: LineHeat

    def for_path(self, path: str) -> FileHeat | None:
        return self.files.get(_norm(path))


def _norm(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


def build_index(heat: LineHeat, profile: Profile, resolve: Callable[[str], str | None]) -> HeatIndex:
    """Group `heat` by the file each recorded path resolves to (recorded path when none)."""
    per_file: dict[str, dict[int, HotLine]] = {}
    names = profile.routines
    for recorded, figures in heat.lines.items():
        path = resolve(recorded) or recorded
        lines = per_file.setdefault(_norm(path), {})
        for f in figures:
            routines = tuple((names[rid].display_name, heat.seconds(t)) for rid, t in f.routines)
            old = lines.get(f.line)
            if old is not None:  # two recorded paths of one file (rare): add up
                merged = sorted(old.routines + routines, key=lambda p: -(p[1] or 0.0))
                samples = old.samples + f.ticks
                lines[f.line] = HotLine(f.line, heat.seconds(samples), heat.percent(f.ticks) + old.percent,
                                        merged[0][0], tuple(merged), samples)  # fmt: skip
                continue
            lines[f.line] = HotLine(
                f.line,
                heat.seconds(f.ticks),
                heat.percent(f.ticks),
                names[f.routine].display_name,
                routines,
                f.ticks,
            )
    files = {}
    for key, lines in per_file.items():
        ordered = tuple(lines[n] for n in sorted(lines))
        files[key] = FileHeat(key, ordered, tuple(h.line for h in ordered))
    return HeatIndex(files, heat.seconds(heat.total_ticks), heat)


def compute(
    profile: Profile,
    histograms: Sequence[HistogramRecord],
    table: LineTable | None,
    resolve: Callable[[str], str | None],
) -> HeatIndex:
    """The heat of every line, from the load's histogram records."""
    heat = compute_line_heat(profile, histograms, table or LineTable.empty())
    return build_index(heat, profile, resolve)


class HeatHolder:
    """The heat of one load, computed at most once (the first caller computes, others wait).
    A new load has a new holder: nothing computed for an older profile is ever answered."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._index: HeatIndex | None = None
        self._failed = False
        self.task: Any = None  # the server's background computation (an asyncio task), once started
        self.answered_pending = False  # inlay hints were answered empty while computing: refresh after
        self._inlined: dict[str, InlinedCopies] | None = None
        self._words: dict[str, list[tuple[str, InlinedCopies]]] = {}
        self._inlined_lock = threading.Lock()

    def get(self, make: Callable[[], HeatIndex]) -> HeatIndex | None:
        with self._lock:
            if self._index is None and not self._failed:
                try:
                    self._index = make()
                except GmonlensError as exc:  # the files changed since the load: one line
                    log.warning("line heat failed: %s", exc)
                    self._failed = True
                except Exception:  # a broken profile or line table costs only the heat
                    log.exception("line heat failed")
                    self._failed = True
            return self._index

    @property
    def ready(self) -> HeatIndex | None:
        return self._index

    @property
    def failed(self) -> bool:
        return self._failed

    def inlined(
        self, program: Program, profile: Profile, compute_scopes: bool
    ) -> dict[str, InlinedCopies] | None:
        """Inlined copies per function name (None while the scopes are not available)."""
        index = self._index
        if index is None:
            return None
        with self._inlined_lock:
            if self._inlined is None:
                scopes = program.scopes(compute=compute_scopes)
                if scopes is None:
                    return None
                copies = inlined_copies(index.heat, profile, scopes)
                names = list(copies)
                display, _problem = demangle_all(names)
                words: dict[str, list[tuple[str, InlinedCopies]]] = {}
                for raw, shown in zip(names, display, strict=True):
                    words.setdefault(source_name("", shown), []).append((shown, copies[raw]))
                self._words = words
                self._inlined = copies
            return self._inlined

    def inlined_named(self, word: str) -> list[tuple[str, InlinedCopies]]:
        """(display name, copies) of the inlined functions whose source identifier is `word`
        (empty until `inlined` has run)."""
        return sorted(self._words.get(word, []), key=lambda p: -p[1].ticks)
