"""Recorded (DWARF) source paths -> files on this machine.

Contract of `SourceMapper.resolve(recorded)`, tried in order:
1. `source_map` prefixes (longest first; a prefix matches whole path components): the rewritten
   path, if it exists.
2. The recorded path itself, if it exists inside the workspace root.
3. The workspace file sharing the longest common path suffix (whole components, at least the file
   name) with the recorded path; ties go to the shortest, then alphabetically first, relative path.
4. The recorded path itself, if it exists anywhere (system headers, libraries).
5. None.
Results are cached per recorded path. The workspace is scanned once, lazily, skipping hidden
folders and `node_modules`, up to `max_files` files.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping

_SKIP_DIRS = frozenset({"node_modules", "__pycache__"})


def _components(path: str) -> list[str]:
    return [c for c in path.replace("\\", "/").split("/") if c and c != "."]


def _common_suffix(a: list[str], b: list[str]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


class SourceMapper:
    """Maps recorded source paths to existing files, preferring files of the workspace root."""

    def __init__(
        self, root: str, source_map: Mapping[str, str] | None = None, max_files: int = 200_000
    ) -> None:
        self.root = os.path.abspath(root)
        self._map = sorted(
            ((posixpath.normpath(k), self._absolute(v)) for k, v in (source_map or {}).items() if k),
            key=lambda kv: -len(kv[0]),
        )
        self._max_files = max_files
        self._by_name: dict[str, list[str]] | None = None
        self._cache: dict[str, str | None] = {}

    def _absolute(self, path: str) -> str:
        path = os.path.expanduser(path)
        return os.path.normpath(path if os.path.isabs(path) else os.path.join(self.root, path))

    def inside(self, path: str) -> bool:
        """Whether `path` lies in the workspace root."""
        try:
            return os.path.commonpath([self.root, os.path.abspath(path)]) == self.root
        except ValueError:
            return False

    def resolve(self, recorded: str) -> str | None:
        """The existing file meant by `recorded` (see module contract), or None."""
        if recorded in self._cache:
            return self._cache[recorded]
        result = self._resolve(recorded)
        self._cache[recorded] = result
        return result

    def _resolve(self, recorded: str) -> str | None:
        norm = posixpath.normpath(recorded.replace("\\", "/"))
        for prefix, target in self._map:
            if norm == prefix or norm.startswith(prefix.rstrip("/") + "/"):
                candidate = os.path.normpath(target + norm[len(prefix.rstrip("/")) :])
                if os.path.isfile(candidate):
                    return candidate
        if os.path.isabs(norm) and self.inside(norm) and os.path.isfile(norm):
            return norm
        best = self._suffix_match(norm)
        if best is not None:
            return best
        if os.path.isabs(norm) and os.path.isfile(norm):
            return norm
        return None

    def _suffix_match(self, norm: str) -> str | None:
        parts = _components(norm)
        if not parts:
            return None
        candidates = self._files().get(parts[-1], [])
        best: tuple[int, int, str] | None = None
        for rel in candidates:
            score = _common_suffix(parts, _components(rel))
            key = (-score, len(rel), rel)
            if best is None or key < best:
                best = key
        return os.path.join(self.root, best[2]) if best is not None else None

    def _files(self) -> dict[str, list[str]]:
        if self._by_name is None:
            by_name: dict[str, list[str]] = {}
            count = 0
            for dirpath, dirnames, filenames in os.walk(self.root):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS)
                rel_dir = os.path.relpath(dirpath, self.root)
                for name in filenames:
                    rel = name if rel_dir == "." else os.path.join(rel_dir, name)
                    by_name.setdefault(name, []).append(rel)
                    count += 1
                if count >= self._max_files:
                    break
            self._by_name = by_name
        return self._by_name

    def invalidate(self) -> None:
        """Forget the workspace scan and cached answers (files were added or removed)."""
        self._by_name = None
        self._cache.clear()
