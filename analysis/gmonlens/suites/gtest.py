"""GoogleTest binaries: their tests listed (`--gtest_list_tests`), each run in a process of its
own (`--gtest_filter=Suite.Name`), or each suite (`--gtest_filter=Suite.*`, `--per suite`).

`gmonlens test -- ./unit_tests [ARGS...]`: ARGS go to the listing and to every run (so
`--gtest_filter=Parser*` selects what is listed), but for `--gtest_filter` in the runs (replaced
by the test's own), `--gtest_list_tests` and `--gtest_output` (the listing's). The listing asks
for GoogleTest's JSON list (`--gtest_output=json:FILE`, GoogleTest 1.10+: each test's file and
line) and falls back on the text one: a line `Suite.` (a `  # TypeParam = ...` comment after it)
opens a suite, an indented line names a test (a `  # GetParam() = ...` comment after it). Tests
whose suite or name starts with `DISABLED_` are not run (GoogleTest runs them only with
`--gtest_also_run_disabled_tests`, which is then honoured). A test is judged as GoogleTest
states it: its exit status, and "skipped" when it ran to exit 0 with `[  SKIPPED ]` and no
`[  PASSED  ]` count above 0.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from gmonlens.common.errors import GmonlensError
from gmonlens.common.files import read_regular
from gmonlens.suites.listing import capture
from gmonlens.suites.model import TestSpec, Verdict

DISABLED = "DISABLED_"
MAX_LIST_BYTES = 32 << 20
_OWN = ("--gtest_filter", "--gtest_list_tests", "--gtest_output")


def _own(word: str) -> bool:
    return word.partition("=")[0] in _OWN


def text_listing(text: str) -> list[tuple[str, str]]:
    """(suite, test) pairs of `--gtest_list_tests`'s text (module docstring)."""
    out: list[tuple[str, str]] = []
    suite: str | None = None
    for raw in text.splitlines():
        line = raw.split("  #", 1)[0].rstrip()
        if not line:
            continue
        if raw[:1] not in (" ", "\t"):
            suite = line[:-1] if line.endswith(".") and " " not in line else None
        elif suite is not None and " " not in line.strip():
            out.append((suite, line.strip()))
    return out


def json_listing(data: bytes) -> list[tuple[str, str, str | None, int]]:
    """(suite, test, file, line) of GoogleTest's JSON list; ValueError when it is not one."""
    doc = json.loads(data)
    suites = doc.get("testsuites") if isinstance(doc, dict) else None
    if not isinstance(suites, list):
        raise ValueError("no 'testsuites'")
    out: list[tuple[str, str, str | None, int]] = []
    for s in suites:
        name = s.get("name") if isinstance(s, dict) else None
        cases = s.get("testsuite") if isinstance(s, dict) else None
        if not isinstance(name, str) or not isinstance(cases, list):
            raise ValueError("a suite without a name or tests")
        for c in cases:
            test: Any = c.get("name") if isinstance(c, dict) else None
            if not isinstance(test, str):
                raise ValueError("a test without a name")
            file, line = c.get("file"), c.get("line")
            out.append(
                (name, test, file if isinstance(file, str) else None, line if isinstance(line, int) else 0)
            )
    return out


def _listed(
    argv: Sequence[str], cwd: str, env: Mapping[str, str], scratch: str
) -> list[tuple[str, str, str | None, int]]:
    target = os.path.join(scratch, "gtest-list.json")
    extra = [a for a in argv[1:] if a.partition("=")[0] not in ("--gtest_list_tests", "--gtest_output")]
    out = capture([argv[0], *extra, "--gtest_list_tests", f"--gtest_output=json:{target}"], cwd, env, scratch)
    if out.status != 0:
        raise GmonlensError(argv[0], f"--gtest_list_tests failed: {out.first_error_line()}")
    if os.path.lexists(target):
        try:
            found = json_listing(read_regular(target, MAX_LIST_BYTES, "GoogleTest's list of tests"))
        except (ValueError, RecursionError, GmonlensError):
            found = None
        finally:
            os.unlink(target)
        if found is not None:
            return found
    return [(s, t, None, 0) for s, t in text_listing(out.stdout.decode("utf-8", "replace"))]


def _runs_disabled(argv: Sequence[str], env: Mapping[str, str]) -> bool:
    flag = any(
        a.partition("=")[0] == "--gtest_also_run_disabled_tests" and a.partition("=")[2] != "0" for a in argv
    )
    return flag or env.get("GTEST_ALSO_RUN_DISABLED_TESTS", "0") not in ("", "0")


def list_gtest(
    argv: Sequence[str], cwd: str, env: Mapping[str, str], scratch: str, per: str
) -> tuple[TestSpec, ...]:
    """The tests of GoogleTest binary `argv[0]`, one TestSpec per test (or per suite)."""
    listed = _listed(argv, cwd, env, scratch)
    disabled_ok = _runs_disabled(argv, env)
    keep = [a for a in argv[1:] if not _own(a)]
    specs: dict[str, TestSpec] = {}
    for suite, test, file, line in listed:
        if not disabled_ok and (suite.startswith(DISABLED) or test.startswith(DISABLED)):
            continue
        name = suite if per == "suite" else f"{suite}.{test}"
        if name in specs:
            continue
        pattern = f"{suite}.*" if per == "suite" else name
        specs[name] = TestSpec(
            name, (argv[0], *keep, f"--gtest_filter={pattern}"), cwd, dict(env),
            verdict=Verdict(gtest_skip=True), labels=(suite,), file=file, line=line,
        )  # fmt: skip
    return tuple(specs.values())
