"""Which profile files and which executable belong to a workspace folder.

Contract of `discover(folder, settings)`:
- Profiles: `settings.profiles` (files or globs, relative to the folder), else `gmon.out`,
  `gmon.out.*` and `gmon.sum` in the folder or its usual build folders (`SEARCH_DIRS`, and
  `build-*`, `cmake-build-*`), from the folder holding the newest such file. Where both `gmon.sum` and
  `gmon.out`/`gmon.out.*` are, the newer set is taken (and `Discovery.choice` says so). A
  recording (`gmonlens record`'s DIR, `gmonlens-record/` in those folders: `recordings.py`) is one
  more such set: one program's profiles, as its record.json names them, competing by their newest
  file; its program is the first binary candidate (still held to the fit rule).
- Binary: `settings.binary` (relative to the folder), else an ELF executable (PIE or not; never a
  shared object, an object file or a stripped copy), in the profiles' folder, the workspace folder
  or the build folders, that the profiles fit EXACTLY by the engine's rule (`gmonlens.profile.fit`); the
  newest of those, and `choice` says which was taken when several fit.
  A libtool build tree (`--enable-shared`, the default) holds a wrapper script where the program
  should be and the ELF in `.libs/`: each searched folder's `.libs/` is searched too, the wrapper is
  recognised, and when the program's code is in shared libraries built beside it (which gprof
  cannot profile) `choice` says so and how to fix it (`--disable-shared`, or `-static` in LDFLAGS).
- Never raises: what is missing or wrong becomes `Discovery.problem`, one line naming each
  candidate tried and why it was refused, ending with the setting that fixes it.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from dataclasses import dataclass

from gmonlens.common.errors import ElfError, GmonlensError
from gmonlens.load.program import ProfileFiles, Program, is_executable
from gmonlens.profile.fit import describe

from . import cache_entries
from .recordings import RecordingSet, find_recordings
from .settings import UNTRUSTED, Settings

SEARCH_DIRS = (".", "build", "out", "bin", "Debug", "Release", "builddir", "_build", "target", "obj", "dist")
PROFILE_PATTERNS = ("gmon.out", "gmon.out.*", "gmon.sum")
_MAX_CANDIDATES = 64


@dataclass(frozen=True)
class Discovery:
    binary: str | None
    profiles: tuple[str, ...]
    problem: str | None = None  # why nothing can be loaded, when binary or profiles is missing
    notes: tuple[str, ...] = ()  # how the choice was made (log messages)
    choice: str | None = None  # which of several fitting binaries / profile sets was taken, and why
    program: Program | None = None  # the chosen binary as the fit check read it (the load reads on)


def _abs(folder: str, path: str) -> str:
    path = os.path.expanduser(path.replace("${workspaceFolder}", folder))
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(folder, path))


SEARCH_PREFIXES = ("build-", "cmake-build-")  # build-release/, build-O2/, cmake-build-debug/, ...
_MAX_PREFIXED = 16  # such folders searched at most (the first in name order)
_MAX_SCANNED = 10_000  # entries of the workspace folder looked at for them


def search_dirs(folder: str) -> list[str]:
    """The folders searched for profiles and binaries: `folder`, its SEARCH_DIRS, then its
    subfolders named with a SEARCH_PREFIXES prefix (budgeted: a workspace may hold millions)."""
    dirs = [os.path.join(folder, d) for d in SEARCH_DIRS]
    return [os.path.normpath(d) for d in dirs if os.path.isdir(d)] + _prefixed_dirs(folder)


def _prefixed_dirs(folder: str) -> list[str]:
    names: list[str] = []
    try:
        with os.scandir(folder) as it:
            for k, entry in enumerate(it):
                if k >= _MAX_SCANNED:
                    break
                if entry.name.startswith(SEARCH_PREFIXES) and entry.is_dir():
                    names.append(entry.name)
    except OSError:
        return []
    return [os.path.normpath(os.path.join(folder, n)) for n in sorted(names)[:_MAX_PREFIXED]]


def brief(paths: Iterable[str], limit: int = 3) -> str:
    """Paths for a message or log line: all of them when few, else the first and a count
    ("a/gmon.out.1, a/gmon.out.2, a/gmon.out.3 and 19997 more")."""
    items = list(paths)
    if len(items) <= limit:
        return ", ".join(items)
    return f"{', '.join(items[:limit])} and {len(items) - limit} more"


def _newest(paths: Iterable[str]) -> float:
    return max((os.path.getmtime(p) for p in paths), default=0.0)


def find_profiles(folder: str) -> list[str]:
    """Default profile files: those of the build folder holding the newest one."""
    return profile_set(folder)[0]


def profile_set(folder: str) -> tuple[list[str], str | None]:
    """Default profile files, and a sentence when a newer set was preferred to another."""
    profiles, why, _recording, _notes = default_profiles(folder)
    return profiles, why


def default_profiles(
    folder: str, trusted: bool = True, prefer: str | None = None
) -> tuple[list[str], str | None, RecordingSet | None, list[str]]:
    """The newest default set (module docstring): (profiles, a sentence when a choice was made,
    the recording they come from or None, notes on recordings not taken). `trusted` and
    `prefer` (the binary setting, absolute) are the recordings' (`recordings.find_recordings`)."""
    dirs = search_dirs(folder)
    recordings, notes = find_recordings(folder, dirs, trusted, prefer)
    best: tuple[float, list[str], str | None, RecordingSet | None] | None = None
    for rec in recordings:
        newest = _newest(rec.profiles)
        if best is None or newest > best[0]:
            best = (newest, list(rec.profiles), _recording_why(folder, rec), rec)
    held = {r.directory for r in recordings}
    for d in dirs:
        if os.path.normpath(d) in held:
            continue  # a recording's own folder: its record.json says which profiles are whose
        found: list[str] = []
        for pattern in PROFILE_PATTERNS:
            found += [p for p in glob.glob(os.path.join(glob.escape(d), pattern)) if os.path.isfile(p)]
        if not found:
            continue
        found = sorted(set(found))
        why = None
        sums = [p for p in found if os.path.basename(p) == "gmon.sum"]
        parts = [p for p in found if os.path.basename(p) != "gmon.sum"]
        if sums and parts:
            # gmon.sum holds what `gprof -s` summed: never add the parts again; take the newer set
            if _newest(sums) >= _newest(parts):
                found, why = sums, f"{sums[0]} is newer than {brief(parts)}: using gmon.sum"
            else:
                found = parts
                why = f"{brief(parts)} newer than {sums[0]}: using {'them' if len(parts) > 1 else 'it'}, not gmon.sum"
        newest = _newest(found)
        if best is None or newest > best[0]:
            best = (newest, found, why, None)
    return (best[1], best[2], best[3], notes) if best else ([], None, None, notes)


def _recording_why(folder: str, rec: RecordingSet) -> str | None:
    """A recording's choice, said when it holds profiles of other programs too."""
    if not rec.others:
        return None
    others = brief(_rel(folder, o) for o in rec.others)
    return (
        f"the recording in {_rel(folder, rec.directory)}: {_rel(folder, rec.program)}'s profiles "
        f"(also of {others}: {FIX_BINARY} to choose)"
    )


MAX_PROFILE_MATCHES = 4096  # files a `profiles` setting may name in all; more are left out, said once
MAX_GLOB_DEPTH = 8  # directory levels a pattern's wildcards may descend below its fixed part


def expand_profiles(
    folder: str, patterns: Iterable[str], trusted: bool = True
) -> tuple[list[str], list[str]]:
    """Files named by the setting, and one problem per pattern that names nothing (or too much).

    Each file is taken once by its real path (two routes to one file, e.g. through a link to `.`,
    would sum it twice); wildcards never descend through a symbolic link to a directory (a link
    to `.` under `*/*/...` doubles the matches at each level), nor more than `MAX_GLOB_DEPTH`
    levels; past `MAX_PROFILE_MATCHES` files the rest are left out and a problem says so.
    Unless `trusted`, a file named inside the folder whose links lead outside it is left out
    (said once per pattern)."""
    files: list[str] = []
    real: set[str] = set()
    problems: list[str] = []
    root, here = os.path.realpath(folder), os.path.normpath(os.path.abspath(folder))
    for pattern in patterns:
        full = _abs(folder, pattern)
        hits, capped = [full], ""  # a missing file is reported by the loader, in its words
        if glob.has_magic(full):
            hits, capped = _glob_files(full, MAX_PROFILE_MATCHES - len(files))
            if not hits and not capped:
                problems.append(f"{full}: no file matches")
        inside = _within(here, full)  # named inside the folder (as written): must stay inside
        escaped = 0
        for p in hits:
            key = os.path.realpath(p)
            if not trusted and inside and not _within(root, key):
                escaped += 1
            elif key not in real:
                real.add(key)
                files.append(p)
        if escaped:
            problems.append(f"{full}: {escaped} of its files {UNTRUSTED}; left out")
        if capped.startswith("more than") and capped.endswith("levels of wildcards"):
            problems.append(f"{full}: {capped}; pattern ignored")
        elif capped:
            problems.append(f"{full}: {capped}; profiles after the first {len(files)} left out")
            break
    return files, problems


def _within(root: str, real: str) -> bool:
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _glob_files(pattern: str, room: int) -> tuple[list[str], str]:
    """Regular files matching `pattern`, sorted, at most `room` of them, walking no directory
    link below the pattern's first wildcard; and why the walk was cut short ("" if it was not)."""
    parts = pattern.split(os.sep)
    fixed = next(i for i, part in enumerate(parts) if glob.has_magic(part))
    base = os.sep.join(parts[:fixed]) or os.sep
    rest = parts[fixed:]
    if len(rest) - 1 > MAX_GLOB_DEPTH:
        return [], f"more than {MAX_GLOB_DEPTH} directory levels of wildcards"  # (pattern ignored)
    out: list[str] = []
    level = [base]
    for depth, part in enumerate(rest):
        last = depth == len(rest) - 1
        nxt: list[str] = []
        for d in level:
            for name in _matching(d, part):
                path = os.path.join(d, name)
                if last:
                    if os.path.isfile(path):
                        out.append(path)
                        if len(out) > room:
                            return sorted(out[:room]), f"more than {MAX_PROFILE_MATCHES} files match"
                elif not os.path.islink(path) and os.path.isdir(path):
                    nxt.append(path)
                    if len(nxt) > MAX_PROFILE_MATCHES:
                        return sorted(out), f"more than {MAX_PROFILE_MATCHES} directories match"
        level = nxt
    return sorted(out), ""


def _matching(directory: str, part: str) -> list[str]:
    """Names in `directory` matching one pattern component (glob's rules: hidden names only when
    the component starts with a dot)."""
    import fnmatch

    if not glob.has_magic(part):
        return [part] if os.path.lexists(os.path.join(directory, part)) else []
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    hidden = part.startswith(".")
    return sorted(n for n in names if (hidden or not n.startswith(".")) and fnmatch.fnmatchcase(n, part))


def _is_executable(path: str) -> bool:
    """An executable file that the engine says is an ELF executable (`gmonlens.binary.image.is_executable`:
    PIE or not; never a shared object or an object file; headers read only)."""
    return os.path.isfile(path) and os.access(path, os.X_OK) and is_executable(path)


def libtool_wrapper(path: str) -> str | None:
    """The program a libtool wrapper script at `path` runs (`DIR/.libs/NAME`, or `.libs/lt-NAME`), or
    None when `path` is not such a script (libtool writes `# NAME - temporary wrapper script for
    .libs/NAME` near its top, NAME being the script's own name)."""
    try:
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            head = f.read(1024)
    except OSError:
        return None
    d, name = os.path.split(path)
    mark = f"# {name} - temporary wrapper script for .libs/".encode("utf-8", "surrogateescape")
    if not head.startswith(b"#!") or mark not in head:
        return None
    for cand in (os.path.join(d, ".libs", name), os.path.join(d, ".libs", "lt-" + name)):
        if os.path.isfile(cand):
            return cand
    return os.path.join(d, ".libs", name)


def shared_libraries_beside(program: Program) -> list[str]:
    """The DT_NEEDED libraries of `program`'s binary that were built beside it (in its folder or a
    sibling libtool `.libs/`): the program's code that gprof cannot profile. [] when there are none."""
    needed = program.needed_libraries()
    here = os.path.dirname(program.path)
    top = os.path.dirname(here) if os.path.basename(here) == ".libs" else here
    roots = [here, top, *glob.glob(os.path.join(glob.escape(top), "*", ".libs"))]
    return [n for n in needed if any(os.path.isfile(os.path.join(r, n)) for r in roots)]


def candidate_binaries(folder: str, profile_dirs: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    dirs = [*profile_dirs, *search_dirs(folder)]
    dirs += [os.path.join(d, ".libs") for d in dirs if os.path.isdir(os.path.join(d, ".libs"))]
    for d in dirs:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for name in names:
            path = os.path.normpath(os.path.join(d, name))
            if name.endswith((".so", ".o", ".a")) or ".so." in name or path in seen:
                continue
            if _is_executable(path):
                seen[path] = None
            if len(seen) >= _MAX_CANDIDATES:
                break
    return list(seen)


def profile_fits(binary: str, profile: str) -> bool:
    """Whether `profile` fits `binary` exactly (the engine's rule, gmonlens.profile.fit)."""
    try:
        return Program(binary, [profile]).fit().exact
    except GmonlensError:
        return False


# the fixes as the language server's user applies them (gmonlens mcp words its own)
FIX_BINARY = "set `binary` in gmonlens.yaml or the gmonlens.binary client setting"
FIX_PROFILES = "set `profiles` in gmonlens.yaml or the gmonlens.profiles client setting"


def _rel(folder: str, path: str) -> str:
    rel = os.path.relpath(path, folder)
    return path if rel.startswith("..") else rel


def _refusal(reason: str) -> str:
    """A fit error in a few words: the evidence, without 'profile does not fit PATH: '."""
    head, sep, rest = reason.partition(": ")
    return rest if sep and head.startswith("profile does not fit") else reason


def choose_binary(folder: str, profiles: list[str], first: Iterable[str] = ()) -> tuple[Program | None, str]:
    """(the binary's Program, why it was taken) or (None, the problem naming each candidate tried
    and why it was refused), by the engine's fit rule; the profiles are read once for all the
    candidates (`ProfileFiles`). `first`: candidates tried before those found in the folders (a
    recording's program), when they are ELF executables."""
    dirs = list(dict.fromkeys(os.path.dirname(p) for p in profiles))
    found = candidate_binaries(folder, dirs)
    ahead = [os.path.normpath(c) for c in first if _is_executable(c)]
    candidates = list(dict.fromkeys([*ahead, *found]))
    exact: list[Program] = []
    refused: list[str] = []  # "candidate: why", in the order tried
    profile_errors: list[str] = []
    unfit: list[str] = []  # ELF programs the profile does not fit
    files = ProfileFiles(profiles, keep_open=True)  # the load asks whether they were written since
    for c in candidates:
        program = Program(c, files)
        try:
            fit = cache_entries.fit_of(program)
        except ElfError as exc:
            why = "has no symbol table (stripped)" if "no symbols" in exc.message else exc.message
            refused.append(f"{_rel(folder, c)} {why}")
            continue
        except GmonlensError as exc:  # the profile cannot be read at this binary's word size
            profile_errors.append(str(exc))
            refused.append(f"{_rel(folder, c)}: {exc.message}")
            continue
        if fit.exact:
            exact.append(program)
        elif fit.fits:
            refused.append(f"{_rel(folder, c)} fits only loosely ({describe(fit).rsplit(': ', 1)[-1]})")
        else:
            refused.append(f"{_rel(folder, c)}: {_refusal(describe(fit))}")
            unfit.append(c)
    name = brief(_rel(folder, p) for p in profiles)
    if exact:
        exact.sort(key=lambda p: os.path.getmtime(p.path), reverse=True)
        why = f"binary {_rel(folder, exact[0].path)}: fits {name}"
        if len(exact) > 1:
            others = ", ".join(_rel(folder, c.path) for c in exact[1:])
            why += f"; the newest of {len(exact)} that fit (also {others}; {FIX_BINARY} to choose)"
        shared = shared_libraries_beside(exact[0])
        if shared:
            why += (
                f"; {_rel(folder, exact[0].path)} is a libtool program whose code is in the shared "
                f"{'library' if len(shared) == 1 else 'libraries'} {', '.join(shared)}, which gprof "
                "cannot profile: configure with --disable-shared (or add -static to LDFLAGS) and rebuild"
            )
        return exact[0], why
    if profile_errors and len(profile_errors) == len(candidates):
        return None, profile_errors[0]  # the profile itself is unreadable
    details = [*refused, *_wrappers(folder, dirs, candidates)]
    if not candidates:
        details.append("there is no executable there")
    detail = "".join(f"; {d}" for d in details)
    newer = [c for c in unfit if rebuilt_since(c, profiles)]
    ran = _binary_that_ran(files)
    certain = [c for c in newer if os.path.realpath(c) == ran]
    fix = rebuilt_fix(_rel(folder, (certain or newer)[0]), bool(certain)) if newer else FIX_BINARY
    return (
        None,
        f"{profiles[0]}: no executable in {folder} or its build folders fits this profile{detail}; {fix}",
    )


def _binary_that_ran(files: ProfileFiles) -> str | None:
    try:
        return cache_entries.binary_that_ran(files.content_keys())
    except GmonlensError:
        return None


def rebuilt_since(binary: str, profiles: Iterable[str]) -> bool:
    """Whether `binary` was modified after one of `profiles` was written (a rebuild since the run)."""
    try:
        built = os.path.getmtime(binary)
        return any(built > os.path.getmtime(p) for p in profiles)
    except OSError:
        return False


RUN_AGAIN = (
    "run the program again (or pin the old binary: keep a copy of the build that ran and set `binary` to it)"
)


def rebuilt_fix(binary: str, certain: bool) -> str:
    """The fix for a profile that `binary`, modified since the run, does not fit: setting `binary`
    to it is refused just the same. `certain`: the profile was loaded with this file before
    (`cache_entries.binary_that_ran`), so it is a rebuild, not another program."""
    if certain:
        return f"{binary} was rebuilt after the run that wrote the profile: {RUN_AGAIN}"
    return f"if {binary} was rebuilt since the run, {RUN_AGAIN}; if the profile is another program's, {FIX_BINARY}"


def _wrappers(folder: str, dirs: list[str], candidates: list[str]) -> list[str]:
    """A sentence per libtool wrapper script in the searched folders whose program is not there."""
    out: list[str] = []
    for d in [*dirs, *search_dirs(folder)]:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for n in names:
            real = libtool_wrapper(os.path.join(d, n))
            if real is not None and os.path.normpath(real) not in candidates:
                out.append(
                    f"{_rel(folder, os.path.join(d, n))} is a libtool wrapper script and "
                    f"{_rel(folder, real)} is not an executable"
                )
    return list(dict.fromkeys(out))


def discover(folder: str, settings: Settings) -> Discovery:
    notes: list[str] = []
    choice: list[str] = []
    first: tuple[str, ...] = ()  # a recording's program: the first binary candidate
    if settings.profiles:
        profiles, problems = expand_profiles(folder, settings.profiles, settings.trusted)
        if problems and not profiles:
            return Discovery(None, (), problem=problems[0], notes=tuple(problems))
        notes += problems
    else:
        prefer = _abs(folder, settings.binary) if settings.binary else None
        profiles, why, recording, skipped = default_profiles(folder, settings.trusted, prefer)
        notes += skipped
        if recording is not None:
            first = (recording.binary,) if recording.binary else ()
        if not profiles:
            dirs = "/, ".join(SEARCH_DIRS[1:])
            none = (
                f"{folder}: no gmon.out, gmon.out.* or gmon.sum here or in {dirs}/, build-*/, cmake-build-*/ "
                f"(run the program built with -pg, or record it with `gmonlens record -- PROGRAM`, which says "
                f"what is missing when no profile comes; or {FIX_PROFILES})"
            )
            # a recording that made nothing says more than "nothing here"
            return Discovery(None, (), problem=skipped[0] if skipped else none, notes=tuple(skipped))
        notes.append("profiles found: " + brief(profiles))
        if why:
            choice.append(why)
    if settings.binary:
        return Discovery(
            _abs(folder, settings.binary), tuple(profiles), notes=tuple(notes), choice=choice_text(choice)
        )
    program, why = choose_binary(folder, profiles, first)
    if program is None:
        return Discovery(None, tuple(profiles), problem=why, notes=tuple(notes))
    notes.append(why)
    if "newest of" in why or "libtool" in why:
        choice.append(why)
    return Discovery(
        program.path, tuple(profiles), notes=tuple(notes), choice=choice_text(choice), program=program
    )


def choice_text(parts: list[str]) -> str | None:
    return "; ".join(parts) if parts else None
