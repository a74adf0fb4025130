"""A test's own verdict from how it ended and what it printed, as its runner decides it (pure).

- CTest (cmCTestRunTest's order): a `SKIP_RETURN_CODE` exit is skipped; with
  `PASS_REGULAR_EXPRESSION` the test passes when one matches its output (the exit status is not
  looked at), else it passes on exit status 0; a `FAIL_REGULAR_EXPRESSION` match fails it; a
  `SKIP_REGULAR_EXPRESSION` match skips it; `WILL_FAIL` then turns a pass into a failure and a
  failure into a pass. A time limit reached is `timeout` whatever the rest says.
- meson's protocols: `exitcode` (0 passes, 77 skipped, 99 an error), `tap` (fails on a `not ok`
  line without a `# TODO` directive, on `Bail out!`, or a non-zero exit; `1..0` with no test:
  skipped), `gtest` and `rust` (the exit status).
- GoogleTest: exit status 0 with `[  SKIPPED ]` and `[  PASSED  ] 0 tests` is skipped.
Regular expressions are CTest's (a subset of Python's syntax as written in practice); one that
Python cannot compile is matched as plain text.
"""

from __future__ import annotations

import re

from gmonlens.suites.model import FAILED, INTERRUPTED, PASSED, SKIPPED, TIMEOUT, Verdict

_TAP_NOT_OK = re.compile(r"^not ok\b(.*)$", re.MULTILINE)
_TAP_TODO = re.compile(r"#\s*todo\b", re.IGNORECASE)
_TAP_PLAN_SKIP = re.compile(r"^1\.\.0\b", re.MULTILINE)
_TAP_OK = re.compile(r"^(?:not )?ok\b", re.MULTILINE)


def _search(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text, re.MULTILINE) is not None
    except re.error:
        return pattern in text


def _tap(code: int, text: str) -> str:
    if "Bail out!" in text:
        return FAILED
    if any(not _TAP_TODO.search(m.group(1)) for m in _TAP_NOT_OK.finditer(text)):
        return FAILED
    if _TAP_PLAN_SKIP.search(text) and not _TAP_OK.search(text):
        return SKIPPED
    return PASSED if code == 0 else FAILED


def _gtest_skipped(text: str) -> bool:
    return "[  SKIPPED ]" in text and "[  PASSED  ] 0 tests" in text


def _ctest(v: Verdict, code: int, text: str) -> str:
    if code in v.skip_codes:
        return SKIPPED
    if v.pass_patterns:
        ok = any(_search(p, text) for p in v.pass_patterns)
    else:
        ok = code == 0
    if any(_search(p, text) for p in v.fail_patterns):
        ok = False
    if any(_search(p, text) for p in v.skip_patterns):
        return SKIPPED
    if v.will_fail:
        ok = not ok
    return PASSED if ok else FAILED


def decide(
    v: Verdict, exit_status: int, text: str, *, timed_out: bool = False, interrupted: bool = False
) -> str:
    """The test's status (module docstring): `exit_status` as a shell reports it (128 + N for
    signal N), `text` its output."""
    if timed_out:
        return TIMEOUT
    if interrupted:
        return INTERRUPTED
    if v.protocol == "tap":
        return _tap(exit_status, text)
    if v.error_codes and exit_status in v.error_codes:
        return FAILED
    if v.gtest_skip and exit_status == 0 and _gtest_skipped(text):
        return SKIPPED
    return _ctest(v, exit_status, text)
