"""Per-test profiles: a `gmonlens test` folder read as one profile set per test and binary (I/O).

The interface the rest of `check` uses is `TestRun` and `read_test_folder(folder)`; nothing else
knows the folder's layout, which is `gmonlens test`'s (`gmonlens.suites.index_json`, schema
`gmonlens-test/1`):

    FOLDER/index.json            {"schema": "gmonlens-test/1", ...,
                                  "tests": [{"name": "ParserTest.Big", "status": "passed",
                                             "binary": "../build/parser_test",
                                             "profiles": ["ParserTest.Big/gmon.out.4242", ...],
                                             "other_binaries": [{"binary": ..., "profiles": [...]}],
                                             ...},
                                            ...]}
    FOLDER/<one folder per test>/gmon.out.<pid>, ...

- `index.json` (when present) lists the tests in order: `name` (a string, unique per binary) and
  `profiles` (file paths relative to FOLDER, inside it) are required; `binary` (relative to FOLDER
  or absolute: the executable those profiles are of; null or absent: the budget file's) and
  `status` (the test's own result) are optional; `other_binaries` (optional) lists the further
  programs the test ran, each with its `binary` and `profiles`: each is a run of its own (same
  name, that binary); `duration` and `seconds` (numbers) are kept when given. A test or binary with no profile (it crashed, or was not run) is not a
  run: nothing can be checked on it. Other keys are ignored.
- Without it, each sub-folder of FOLDER (in name order) is a test named after it, and its files
  `gmon.out` and `gmon.out.*` are its profiles (a sub-folder without one is skipped).
The folder is untrusted: the index is a regular file of at most MAX_INDEX_BYTES, at most
MAX_TESTS tests are read, a profile path may not leave FOLDER. Problems raise GmonlensError naming
the file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from gmonlens.common.errors import GmonlensError
from gmonlens.common.files import read_regular

INDEX = "index.json"
MAX_INDEX_BYTES = 64 << 20
MAX_TESTS = 100_000
MAX_FILES_PER_TEST = 10_000


@dataclass(frozen=True, slots=True)
class TestRun:
    """One test's profiles of one binary (`binary` None: the budget file's binary)."""

    __test__ = False  # not a pytest test class

    name: str
    profiles: tuple[str, ...]
    binary: str | None = None
    status: str | None = None
    duration: float | None = None  # the test's wall seconds (the index's `duration`), when given
    seconds: float | None = None  # its profiled seconds of this binary (the index's `seconds`)


def _inside(folder: str, rel: object, index: str) -> str:
    if not isinstance(rel, str) or not rel or "\0" in rel:
        raise GmonlensError(index, "a profile path is not a non-empty string")
    if os.path.isabs(rel) or os.path.normpath(rel).split(os.sep)[0] == "..":
        raise GmonlensError(index, f"profile path {rel!r} leaves the folder")
    return os.path.normpath(os.path.join(folder, rel))


def _number(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and value >= 0
    return float(value) if ok else None


def _run(
    folder: str, name: str, status: str | None, part: Any, index: str, duration: float | None = None
) -> TestRun:
    """One binary's run of test `name` (`part`: the test's entry, or one of its other_binaries)."""
    files = part.get("profiles") if isinstance(part, dict) else None
    if not isinstance(files, list) or len(files) > MAX_FILES_PER_TEST:
        raise GmonlensError(index, f"test {name!r}: 'profiles' must be a list of paths")
    binary = part.get("binary")
    if binary is not None and (not isinstance(binary, str) or not binary or "\0" in binary):
        raise GmonlensError(index, f"test {name!r}: 'binary' must be a path")
    return TestRun(
        name,
        tuple(_inside(folder, f, index) for f in files),
        None if binary is None else os.path.normpath(os.path.join(folder, binary)),
        status,
        duration,
        _number(part.get("seconds")),
    )


def _entry(folder: str, e: Any, index: str) -> list[TestRun]:
    """The runs of one test: its main binary's, then its other binaries' (those with profiles)."""
    if not isinstance(e, dict) or not isinstance(e.get("name"), str) or not e["name"]:
        raise GmonlensError(index, "each test needs a 'name' (a non-empty string)")
    status = e.get("status") if isinstance(e.get("status"), str) else None
    others = e.get("other_binaries", [])
    if not isinstance(others, list) or len(others) > MAX_FILES_PER_TEST:
        raise GmonlensError(index, f"test {e['name']!r}: 'other_binaries' must be a list")
    duration = _number(e.get("duration"))
    runs = [_run(folder, e["name"], status, part, index, duration) for part in (e, *others)]
    return [r for r in runs if r.profiles]


def _from_index(folder: str, index: str) -> tuple[TestRun, ...]:
    try:
        data = json.loads(read_regular(index, MAX_INDEX_BYTES, "test index (JSON)"))
    except (ValueError, RecursionError) as e:
        raise GmonlensError(index, f"not a JSON test index ({' '.join(str(e).split())[:120]})") from None
    tests = data.get("tests") if isinstance(data, dict) else None
    if not isinstance(tests, list):
        raise GmonlensError(index, "a JSON object with a list 'tests' is expected")
    if len(tests) > MAX_TESTS:
        raise GmonlensError(index, f"more than {MAX_TESTS} tests")
    runs = tuple(r for e in tests for r in _entry(folder, e, index))
    seen: set[tuple[str, str | None]] = set()
    for r in runs:
        if (r.name, r.binary) in seen:
            raise GmonlensError(index, f"test {r.name!r} is listed twice for the same binary")
        seen.add((r.name, r.binary))
    return runs


def _profiles_in(path: str) -> tuple[str, ...]:
    with os.scandir(path) as it:
        names = sorted(
            e.name
            for e in islice(it, MAX_FILES_PER_TEST)
            if (e.name == "gmon.out" or e.name.startswith("gmon.out.")) and e.is_file()
        )
    return tuple(os.path.join(path, n) for n in names)


def _from_folders(folder: str) -> tuple[TestRun, ...]:
    with os.scandir(folder) as it:
        subs = sorted(e.name for e in islice(it, MAX_TESTS + 1) if e.is_dir(follow_symlinks=False))
    if len(subs) > MAX_TESTS:
        raise GmonlensError(folder, f"more than {MAX_TESTS} test folders")
    runs = []
    for name in subs:
        files = _profiles_in(os.path.join(folder, name))
        if files:
            runs.append(TestRun(name, files))
    return tuple(runs)


def read_test_folder(folder: str) -> tuple[TestRun, ...]:
    """The tests of a `gmonlens test` folder, in order (module doc); GmonlensError when the
    folder or its index cannot be read, or holds no test."""
    index = os.path.join(folder, INDEX)
    try:
        runs = _from_index(folder, index) if os.path.lexists(index) else _from_folders(folder)
    except OSError as e:
        raise GmonlensError(folder, f"cannot read the test folder ({e.strerror or e})") from None
    if not runs:
        raise GmonlensError(folder, "no test profiles (no index.json, and no sub-folder holds gmon.out*)")
    return runs


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.basename(a) == os.path.basename(b)


def runs_of(runs: Sequence[TestRun], binary: str) -> tuple[TestRun, ...]:
    """The runs whose profiles are of `binary` (those that name no binary are taken to be)."""
    return tuple(r for r in runs if r.binary is None or _same_file(r.binary, binary))
