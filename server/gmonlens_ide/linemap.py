"""Lines of an edited text mapped back to the text a build compiled (no LSP types here).

The figures of a profile sit on the lines its binary's DWARF records: the source as it was built.
An editor's unsaved edits move those lines. `LineMap` follows the edits of one open document
since a version of its text (the build's): which lines are unchanged and where they are now,
which were replaced. `EditLog` keeps a map from each version a build may have compiled (the text
as opened, as saved) to now, so that a profile is mapped from the save its binary was built after.

Lines are 0-based. An edit is `(first, removed, added)`: the current lines [first, first +
removed) replaced by `added` new lines (the lines it leaves as they were are not in it). The work
per edit is proportional to the number of separate places edited so far, not to the text.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from dataclasses import dataclass, field

MAX_SAVES = 8  # versions kept besides the one opened


class LineMap:
    """Base lines -> current lines through edits: the unchanged runs `(base, current, length)`,
    in order (a line in no run was replaced since the base)."""

    __slots__ = ("_runs",)

    def __init__(self) -> None:
        self._runs: list[tuple[int, int, int]] = [(0, 0, 1 << 62)]

    def copy(self) -> LineMap:
        other = LineMap()
        other._runs = list(self._runs)
        return other

    @property
    def edited(self) -> bool:
        return self._runs != [(0, 0, 1 << 62)]

    def apply(self, first: int, removed: int, added: int) -> None:
        """Current lines [first, first + removed) replaced by `added` lines."""
        if removed == 0 and added == 0:
            return
        end, shift = first + removed, added - removed
        out: list[tuple[int, int, int]] = []
        for base, cur, n in self._runs:
            if cur + n <= first:  # wholly before the edit
                out.append((base, cur, n))
                continue
            if cur < first:  # the part before it
                out.append((base, cur, first - cur))
            if cur + n > end:  # the part after it, moved
                skip = max(end - cur, 0)
                out.append((base + skip, cur + skip + shift, n - skip))
        self._runs = out

    def _run_of_base(self, line: int) -> tuple[int, int, int] | None:
        i = bisect_right(self._runs, (line, 1 << 62, 0)) - 1
        if i >= 0:
            run = self._runs[i]
            if run[0] <= line < run[0] + run[2]:
                return run
        return None

    def current(self, line: int) -> int | None:
        """Where base line `line` is now; None when it was replaced."""
        run = self._run_of_base(line)
        return None if run is None else run[1] + line - run[0]

    def near(self, line: int) -> int:
        """Where base line `line` is now, or (replaced) where its replacement begins."""
        run = self._run_of_base(line)
        if run is not None:
            return run[1] + line - run[0]
        i = bisect_right(self._runs, (line, 1 << 62, 0)) - 1
        if i < 0:
            return 0
        _base, cur, n = self._runs[i]
        return cur + n

    def line(self, line: int) -> int | None:
        """Where base line `line` is now: `current`, or, for a line in a place where as many lines
        were written as were there (a line retyped), the line in the same place; None when the
        place changed its number of lines."""
        now = self.current(line)
        if now is not None:
            return now
        i = bisect_right(self._runs, (line, 1 << 62, 0)) - 1
        base_end, cur_end = (
            (0, 0) if i < 0 else (self._runs[i][0] + self._runs[i][2], self._runs[i][1] + self._runs[i][2])
        )
        if i + 1 >= len(self._runs):
            return None
        base_next, cur_next, _ = self._runs[i + 1]
        if base_next - base_end != cur_next - cur_end:
            return None
        return cur_end + line - base_end

    def base(self, line: int) -> int | None:
        """Which base line current line `line` was; None for a line an edit wrote."""
        for base, cur, n in self._runs:  # in order of both
            if cur <= line < cur + n:
                return base + line - cur
            if cur > line:
                break
        return None

    def unchanged(self, first: int, last: int) -> bool:
        """Whether base lines first..last (inclusive) are all as they were, with nothing written
        between them."""
        run = self._run_of_base(first)
        return run is not None and last < run[0] + run[2]


@dataclass
class EditLog:
    """One open document's maps: from the text as opened (`opened_ns`: the file's mtime then) and
    as saved since, to the text now."""

    opened_ns: int = 0
    versions: list[tuple[int, LineMap]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.versions:
            self.versions = [(self.opened_ns, LineMap())]

    def apply(self, first: int, removed: int, added: int) -> None:
        for _, m in self.versions:
            m.apply(first, removed, added)

    def saved(self, when_ns: int | None = None) -> None:
        """The text now is on disk (a new version a build may compile)."""
        when = time.time_ns() if when_ns is None else when_ns
        self.versions.append((when, LineMap()))
        if len(self.versions) > MAX_SAVES + 1:
            del self.versions[1]  # the version opened stays

    def since(self, built_ns: int | None) -> LineMap | None:
        """The map from the text a binary built at `built_ns` compiled (the last version saved
        before it; the version opened when none was) to now; None when nothing was edited since."""
        chosen = self.versions[0][1]
        if built_ns is not None:
            for when, m in self.versions:
                if when <= built_ns:
                    chosen = m
        return chosen if chosen.edited else None
