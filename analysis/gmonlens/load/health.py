"""Profile health from the files' dates (one of the engine's I/O modules: it stats files).

The checks: the binary was modified after a profile was written (the profile may be another build's),
and source files were modified after the binary (lines and names may have moved). Both compare
modification times only; files that cannot be stat'ed are skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from gmonlens.load.loader import Loaded
from gmonlens.profile.certainty import Health, profile_health, thread_starter

MAX_SOURCES = 5000  # distinct source files stat'ed at most


def _mtime(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime
    except (OSError, ValueError):
        return None


def binary_changed(binary: str, profiles: Sequence[str]) -> Health | None:
    """A Health entry when `binary` is newer than one of `profiles`."""
    b = _mtime(binary)
    if b is None:
        return None
    older = [p for p in profiles if (t := _mtime(p)) is not None and t < b]
    if not older:
        return None
    return Health(
        "binary_changed",
        f"{binary} was modified after {older[0]} was written: the profile may come from another build",
        f"run {os.path.basename(binary)} again to write a new profile, or point at the build that wrote it",
    )


def sources_newer(binary: str, sources: Iterable[str], base: str = "") -> Health | None:
    """A Health entry when one of `sources` (relative ones taken from `base`) is newer than
    `binary`."""
    b = _mtime(binary)
    if b is None:
        return None
    newer: list[str] = []
    seen: set[str] = set()
    for s in sources:
        if s in seen:
            continue
        seen.add(s)
        if len(seen) > MAX_SOURCES:
            break
        t = _mtime(os.path.join(base, s))
        if t is not None and t > b:
            newer.append(s)
    if not newer:
        return None
    more = f" and {len(newer) - 1} more" if len(newer) > 1 else ""
    return Health(
        "sources_newer",
        f"{newer[0]}{more} changed after {binary} was built: lines and figures may not match the code",
        "rebuild, run the program again, and reload the profile",
    )


def file_health(binary: str, profiles: Sequence[str], sources: Iterable[str]) -> list[Health]:
    """Both date checks, in that order."""
    out = [binary_changed(binary, profiles), sources_newer(binary, sources)]
    return [h for h in out if h is not None]


def loaded_health(loaded: Loaded, binary: str, profiles: Sequence[str]) -> list[Health]:
    """Every health check for a loaded profile: the profile's own (certainty.profile_health, with
    threads judged from the binary's symbols), then the files' dates (sources: the files of the
    routines with figures)."""
    p = loaded.profile
    starter = thread_starter([s.name for s in loaded.image.symbols])
    sources = sorted({r.file for r in p.routines if r.file and r.has_figures})
    return profile_health(p, starter) + file_health(binary, profiles, sources)
