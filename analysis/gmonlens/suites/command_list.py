"""A plain list of test commands (YAML), for suites without a runner gmonlens knows:

    # gmonlens test -- tests.yaml
    environment: {LC_ALL: C}          # optional: added to every test's environment
    directory: build                  # optional: every test's default working directory
    timeout: 300                      # optional: every test's default time limit (seconds)
    tests:                            # (or the list alone at the top)
      - name: parse-big               # required: a non-empty string, unique
        command: [./prog, big.txt]    # required: a list of words, or one string split as a
                                      #   shell splits words (quotes; no variables, no globs)
        directory: build/data         # optional: relative to the file's folder
        environment: {MODE: fast}     # optional: NAME: value (strings, numbers, booleans)
        timeout: 60                   # optional: seconds > 0

Paths are relative to the list's folder; a test's environment is gmonlens's, then the file's,
then its own. The file is untrusted input: read by `common.safe_yaml` (bounded, plain data, no
aliases or repeated keys), every key typed, unknown keys refused with the nearest known one, at
most MAX_TESTS tests. Every problem is one line naming the file, the line and the test
(`tests.yaml:7: test 3 ('big'): 'command' must be a list of strings or a string`), all of them
reported together (`YamlFileError.lines`). The commands run only because the user named the file
on `gmonlens test`'s command line.
"""

from __future__ import annotations

import difflib
import os
import shlex
from collections.abc import Mapping
from typing import Any

from gmonlens.common.safe_yaml import Document, YamlFileError, read_yaml
from gmonlens.suites.model import TestSpec

MAX_TESTS = 10_000
MAX_WORDS = 4096
WHAT = "list of tests"
TOP_KEYS = ("tests", "environment", "directory", "timeout")
TEST_KEYS = ("name", "command", "directory", "environment", "timeout")


class _Bad(Exception):
    pass


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value or "\0" in value:
        raise _Bad(f"{what} must be a non-empty string")
    return value


def _command(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            words = shlex.split(value)
        except ValueError as e:
            raise _Bad(f"'command' cannot be split into words ({e})") from None
    elif isinstance(value, list) and all(
        isinstance(w, (str, int, float)) and not isinstance(w, bool) for w in value
    ):
        words = [str(w) for w in value]
    else:
        raise _Bad("'command' must be a list of strings or a string")
    if not words or not words[0] or len(words) > MAX_WORDS or any("\0" in w for w in words):
        raise _Bad("'command' must name a program (at most 4096 words, no NUL)")
    return tuple(words)


def _environment(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _Bad("'environment' must be a mapping NAME: value")
    out = {}
    for k, v in value.items():
        if not isinstance(k, str) or not k or "=" in k or "\0" in k:
            raise _Bad(f"environment name {k!r} is not a valid variable name")
        if isinstance(v, bool):
            v = "1" if v else "0"
        if not isinstance(v, (str, int, float)) or "\0" in str(v):
            raise _Bad(f"environment {k}: a string, number or boolean is expected")
        out[k] = str(v)
    return out


def _timeout(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise _Bad("'timeout' must be a number of seconds above 0")
    return float(value)


def _unknown(mapping: Mapping[Any, Any], known: tuple[str, ...]) -> None:
    for key in mapping:
        if key not in known:
            near = difflib.get_close_matches(str(key), known, n=1)
            hint = f" (did you mean '{near[0]}'?)" if near else f" (known: {', '.join(known)})"
            raise _Bad(f"unknown key '{key}'{hint}")


class _Defaults:
    def __init__(self, base: str, env: Mapping[str, str], directory: str, timeout: float | None) -> None:
        self.base, self.env, self.directory, self.timeout = base, env, directory, timeout


def _test(entry: Any, d: _Defaults) -> TestSpec:
    if not isinstance(entry, dict):
        raise _Bad("a test must be a mapping (name, command, ...)")
    _unknown(entry, TEST_KEYS)
    name = _text(entry.get("name"), "'name'")
    argv = _command(entry.get("command"))
    where = entry.get("directory")
    cwd = (
        d.directory if where is None else os.path.normpath(os.path.join(d.base, _text(where, "'directory'")))
    )
    env = {**d.env, **_environment(entry.get("environment"))}
    timeout = _timeout(entry.get("timeout"))
    return TestSpec(name, argv, cwd, env, timeout if timeout is not None else d.timeout)


def _top(doc: Document, path: str, base_env: Mapping[str, str]) -> tuple[list[Any], _Defaults]:
    data = doc.data
    base = os.path.dirname(os.path.abspath(path))
    if isinstance(data, list):
        return data, _Defaults(base, dict(base_env), base, None)
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list):
        raise _Bad("a list of tests, or a mapping with a list 'tests', is expected")
    _unknown(data, TOP_KEYS)
    where = data.get("directory")
    directory = base if where is None else os.path.normpath(os.path.join(base, _text(where, "'directory'")))
    env = {**base_env, **_environment(data.get("environment"))}
    return data["tests"], _Defaults(base, env, directory, _timeout(data.get("timeout")))


def _label(entry: Any, k: int) -> str:
    name = entry.get("name") if isinstance(entry, dict) else None
    return f"test {k} ({name!r})" if isinstance(name, str) and name else f"test {k}"


def read_command_list(path: str, base_env: Mapping[str, str]) -> tuple[TestSpec, ...]:
    """The tests of the list at `path` (module docstring); YamlFileError with every problem."""
    doc = read_yaml(path, WHAT)
    try:
        entries, defaults = _top(doc, path, base_env)
    except _Bad as e:
        raise YamlFileError(path, [f"{path}:{doc.line_of(doc.data) or 1}: {e}"]) from None
    if len(entries) > MAX_TESTS:
        raise YamlFileError(path, [f"{path}: more than {MAX_TESTS} tests"])
    specs: list[TestSpec] = []
    problems: list[str] = []
    seen: set[str] = set()
    for k, entry in enumerate(entries, 1):
        line = doc.item_line(entries, k - 1)
        try:
            spec = _test(entry, defaults)
            if spec.name in seen:
                raise _Bad(f"the name {spec.name!r} is used by an earlier test")
        except _Bad as e:
            problems.append(f"{path}:{line}: {_label(entry, k)}: {e}")
            continue
        seen.add(spec.name)
        specs.append(spec)
    if problems:
        raise YamlFileError(path, problems)
    if not specs:
        raise YamlFileError(path, [f"{path}: no tests listed"])
    return tuple(specs)
