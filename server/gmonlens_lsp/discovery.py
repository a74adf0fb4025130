"""Which profile files and which executable belong to a workspace folder.

Contract of `discover(folder, settings)`:
- Profiles: `settings.profiles` (files or globs, relative to the folder), else `gmon.out`,
  `gmon.out.*` and `gmon.sum` in the folder or its usual build folders (`SEARCH_DIRS`, and
  `cmake-build-*`), from the first folder holding any (newest file decides between folders).
- Binary: `settings.binary` (relative to the folder), else the ELF executable, in the profiles'
  folder, the workspace folder or the build folders, whose code the first profile fits (histogram
  range inside its code, arcs landing on its routines); the newest of those that fit.
- Never raises: what is missing or wrong becomes `Discovery.problem`, in the CLI's words.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gmonlens.errors import GmonlensError

from .settings import Settings

SEARCH_DIRS = (".", "build", "out", "bin", "Debug", "Release", "builddir", "_build", "target", "obj", "dist")
PROFILE_PATTERNS = ("gmon.out", "gmon.out.*", "gmon.sum")
_MAX_CANDIDATES = 64


@dataclass(frozen=True)
class Discovery:
    binary: str | None
    profiles: tuple[str, ...]
    problem: str | None = None  # why nothing can be loaded, when binary or profiles is missing
    notes: tuple[str, ...] = ()  # how the choice was made (log messages)


def _abs(folder: str, path: str) -> str:
    path = os.path.expanduser(path.replace("${workspaceFolder}", folder))
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(folder, path))


def search_dirs(folder: str) -> list[str]:
    dirs = [os.path.join(folder, d) for d in SEARCH_DIRS]
    dirs += sorted(glob.glob(os.path.join(glob.escape(folder), "cmake-build-*")))
    return [os.path.normpath(d) for d in dirs if os.path.isdir(d)]


def find_profiles(folder: str) -> list[str]:
    """Default profile files: those of the build folder holding the newest one."""
    best: tuple[float, list[str]] | None = None
    for d in search_dirs(folder):
        found: list[str] = []
        for pattern in PROFILE_PATTERNS:
            found += [p for p in glob.glob(os.path.join(glob.escape(d), pattern)) if os.path.isfile(p)]
        if not found:
            continue
        found = sorted(set(found))
        if "gmon.sum" in {os.path.basename(p) for p in found} and len(found) > 1:
            # gmon.sum already holds what `gprof -s` summed: do not add the parts again
            found = [p for p in found if os.path.basename(p) == "gmon.sum"]
        newest = max(os.path.getmtime(p) for p in found)
        if best is None or newest > best[0]:
            best = (newest, found)
    return best[1] if best else []


def expand_profiles(folder: str, patterns: Iterable[str]) -> tuple[list[str], list[str]]:
    """Files named by the setting, and one problem per pattern that names nothing."""
    files: list[str] = []
    problems: list[str] = []
    for pattern in patterns:
        full = _abs(folder, pattern)
        if glob.has_magic(full):
            hits = sorted(p for p in glob.glob(full) if os.path.isfile(p))
            if not hits:
                problems.append(f"{full}: no file matches")
            files += hits
        else:
            files.append(full)  # a missing file is reported by the loader, in its words
    return list(dict.fromkeys(files)), problems


def _is_elf_executable(path: str) -> bool:
    try:
        if not os.path.isfile(path) or not os.access(path, os.X_OK):
            return False
        with open(path, "rb") as f:
            head = f.read(18)
    except OSError:
        return False
    # ELF magic, and e_type ET_EXEC (2) or ET_DYN (3: PIE) in either byte order
    return head[:4] == b"\x7fELF" and (head[16:18] in (b"\x02\x00", b"\x03\x00", b"\x00\x02", b"\x00\x03"))


def candidate_binaries(folder: str, profile_dirs: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for d in [*profile_dirs, *search_dirs(folder)]:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for name in names:
            path = os.path.join(d, name)
            if name.endswith((".so", ".o", ".a")) or ".so." in name:
                continue
            if _is_elf_executable(path):
                seen[os.path.normpath(path)] = None
            if len(seen) >= _MAX_CANDIDATES:
                break
    return list(seen)


def profile_fits(binary: str, profile: str) -> bool:
    """Whether `profile`'s histogram range and arcs lie in `binary`'s executable sections (see
    module contract). Reads only the ELF headers and the profile."""
    return _fit(binary, profile)[0]


def _fit(binary: str, profile: str) -> tuple[bool, str | None]:
    """(fits, the profile's own error in the engine's words when it cannot be read at all)."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.constants import SH_FLAGS
    from elftools.elf.elffile import ELFFile

    from gmonlens.gmon import accumulate, parse_gmon

    try:
        with open(binary, "rb") as f:
            elf = ELFFile(f)
            spans = [
                (int(s["sh_addr"]), int(s["sh_addr"]) + int(s["sh_size"]))
                for s in elf.iter_sections()
                if s["sh_flags"] & SH_FLAGS.SHF_EXECINSTR and s["sh_size"]
            ]
            text_sec = elf.get_section_by_name(".text")
            text = (
                (int(text_sec["sh_addr"]), int(text_sec["sh_addr"]) + int(text_sec["sh_size"]))
                if text_sec
                else None
            )
            starts: list[int] = []
            symtab: Any = elf.get_section_by_name(".symtab")
            if symtab is not None and text is None:
                starts = sorted(
                    int(sym["st_value"])
                    for sym in symtab.iter_symbols()
                    if sym["st_info"]["type"] == "STT_FUNC"
                )
            address_size = elf.elfclass // 8
            little = elf.little_endian
    except (OSError, ELFError, ValueError):
        return False, None
    try:
        with open(profile, "rb") as f:
            data = f.read()
        gmon = accumulate([parse_gmon(data, path=profile, address_size=address_size, little_endian=little)])
    except GmonlensError as exc:
        return False, str(exc)
    except OSError as exc:
        return False, f"{profile}: {exc.strerror or exc}"
    if not spans:
        return False, None
    low = min(a for a, _ in spans)
    high = max(b for _, b in spans)
    for h in gmon.histograms:
        # glibc profiles [lowpc, etext): the histogram starts at or before .text and ends at its end
        if h.low_pc < low - 0x1000 or h.high_pc > high + 0x1000 or h.high_pc <= low:
            return False, None
        if text is not None and not (h.low_pc <= text[0] and text[1] - 0x10 <= h.high_pc <= high + 0x1000):
            return False, None
    for a in gmon.arcs[:5000]:
        inside = any(lo <= a.self_pc < hi for lo, hi in spans) and any(
            lo <= a.from_pc < hi for lo, hi in spans
        )
        if not inside:
            return False, None
    if starts and gmon.arcs:
        from bisect import bisect_right

        near = sum(
            1
            for a in gmon.arcs[:5000]
            if (i := bisect_right(starts, a.self_pc)) and a.self_pc - starts[i - 1] < 64
        )
        if near < len(gmon.arcs[:5000]):
            return False, None
    return bool(gmon.histograms) or bool(gmon.arcs), None


def discover(folder: str, settings: Settings) -> Discovery:
    notes: list[str] = []
    if settings.profiles:
        profiles, problems = expand_profiles(folder, settings.profiles)
        if problems and not profiles:
            return Discovery(None, (), problem=problems[0], notes=tuple(problems))
        notes += problems
    else:
        profiles = find_profiles(folder)
        if not profiles:
            return Discovery(
                None,
                (),
                problem=f"{folder}: no gmon.out, gmon.out.* or gmon.sum here or in its build folders",
            )
        notes.append("profiles found: " + ", ".join(profiles))
    if settings.binary:
        return Discovery(_abs(folder, settings.binary), tuple(profiles), notes=tuple(notes))
    dirs = list(dict.fromkeys(os.path.dirname(p) for p in profiles))
    candidates = candidate_binaries(folder, dirs)
    fitting: list[str] = []
    errors: list[str] = []
    for c in candidates:
        ok, error = _fit(c, profiles[0])
        if ok:
            fitting.append(c)
        elif error:
            errors.append(error)
    if not fitting and errors and len(errors) == len(candidates):
        return Discovery(None, tuple(profiles), problem=errors[0], notes=tuple(notes))  # unreadable profile
    if not fitting:
        return Discovery(
            None,
            tuple(profiles),
            problem=f"{profiles[0]}: no executable in {folder} or its build folders fits this profile "
            "(set `binary` in gmonlens.yaml or the client settings)",
            notes=tuple(notes),
        )
    fitting.sort(key=lambda p: os.path.getmtime(p), reverse=True)
    notes.append(f"binary: {fitting[0]} (fits {os.path.basename(profiles[0])}; newest of {len(fitting)})")
    return Discovery(fitting[0], tuple(profiles), notes=tuple(notes))
