"""`gmonlens test`'s text (pure): a line per test as it ends (`progress_line`), and the table of
tests by time with the whole suite's figures after the run (`render`).

The table sorts the tests by their profiled seconds (every binary's samples over its rate),
then by wall time; "±" is one standard error (sqrt(samples)/hz), "calls" the calls counted in
the test's profiles, "wall" its duration. Names are printed as the runner gives them, control
characters shown as `\\xNN`.
"""

from __future__ import annotations

import os
import shlex

from gmonlens.suites.model import (
    FAILED,
    INTERRUPTED,
    NOT_RUN,
    PASSED,
    STATUSES,
    TIMEOUT,
    SuiteRun,
    TestResult,
)

MAX_NOTES = 3


def _clean(text: str) -> str:
    return "".join(ch if ch.isprintable() else f"\\x{ord(ch) & 0xFF:02x}" for ch in text)


def _profiled(t: TestResult) -> str:
    if not t.binaries:
        return "no profile"
    seconds = t.seconds
    calls = sum(b.calls for b in t.binaries)
    samples = sum(b.samples for b in t.binaries)
    time = f"{seconds:.2f} s, {samples:,.0f} samples" if seconds is not None else "no time"
    return f"{time}, {calls:,} calls"


def progress_line(t: TestResult, done: int, total: int) -> str:
    """One test's end, as it happens: `[ 3/12] passed  0.42 s  NAME  (profile figures)`."""
    width = len(str(total))
    return (
        f"gmonlens test: [{done:>{width}}/{total}] {t.status:<11} {t.duration:7.2f} s  "
        f"{_clean(t.spec.name)}  ({_profiled(t)})"
    )


def _row(t: TestResult) -> str:
    seconds = t.seconds
    error = sum((b.seconds_error or 0.0) ** 2 for b in t.binaries) ** 0.5
    samples = sum(b.samples for b in t.binaries)
    calls = sum(b.calls for b in t.binaries)
    s = f"{seconds:10.2f} {error:6.2f}" if seconds is not None else f"{'-':>10} {'-':>6}"
    return f"{s} {samples:9,.0f} {calls:14,} {t.duration:9.2f}  {t.status:<11} {_clean(t.spec.name)}"


def _tally(run: SuiteRun) -> str:
    return ", ".join(f"{run.count(s)} {s}" for s in STATUSES if run.count(s)) or "none run"


def _suite_lines(run: SuiteRun) -> list[str]:
    lines = []
    for binary in run.binaries:
        parts = [b for t in run.tests for b in t.binaries if b.binary == binary]
        samples = sum(b.samples for b in parts)
        hz = next((b.hz for b in parts if b.hz > 0), 0)
        time = f"{samples / hz:.2f} s ({samples:,.0f} samples)" if hz else "no time"
        rel = os.path.relpath(binary)
        files = os.path.join(os.path.relpath(run.out_dir), "*", "gmon.out.*")
        lines.append(f"whole suite: {_clean(rel)}: {time}, {sum(b.calls for b in parts):,} calls, "
                     f"{len(parts)} tests; report: gmonlens report {shlex.quote(rel)} {files}")  # fmt: skip
    return lines


def _problems(run: SuiteRun) -> list[str]:
    lines = []
    for t in run.tests:
        if t.status in (FAILED, TIMEOUT, NOT_RUN, INTERRUPTED) or (t.status == PASSED and not t.binaries):
            where = f" (output: {os.path.join(os.path.relpath(run.out_dir), t.output)})" if t.output else ""
            notes = "; ".join(_clean(n) for n in t.notes[:MAX_NOTES])
            lines.append(f"  {t.status}: {_clean(t.spec.name)}{where}{': ' + notes if notes else ''}")
    return lines


def render(run: SuiteRun) -> str:
    """The table of tests by time and the suite's figures (module docstring)."""
    head = f"gmonlens test: {len(run.tests)} tests ({run.runner}, -j{run.jobs}): {_tally(run)}; profiles in {run.out_dir}"
    lines = [head]
    if run.interrupted:
        lines.append(
            "gmonlens test: interrupted: the tests that were running are marked so, the rest not run"
        )
    if run.helper:
        lines.append(
            f"gmonlens test: without the helper library ({run.helper}): child programs are named from the suite's executables only"
        )
    lines.append(
        f"{'profile s':>10} {'±':>6} {'samples':>9} {'calls':>14} {'wall s':>9}  {'status':<11} test"
    )
    ranked = sorted(run.tests, key=lambda t: (-(t.seconds or 0.0), -t.duration, t.spec.name))
    lines += [_row(t) for t in ranked]
    lines += _suite_lines(run)
    lines += _problems(run)
    return "\n".join(lines) + "\n"
