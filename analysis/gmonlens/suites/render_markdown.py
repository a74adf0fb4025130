"""`gmonlens test --markdown FILE`: the suite as a CI summary or pull-request comment (GitHub- and
GitLab-flavoured Markdown; pure).

A heading with the tally; the tests by profiled time in a table (status, seconds ± one standard
error, samples, calls, wall seconds; at most MAX_TESTS rows, the rest counted); the whole suite
per binary; then, per test (the same first MAX_TESTS), its hottest routines (self seconds, total
seconds, calls) in a collapsed `<details>` block. Every name is escaped
(`output.markdown_cells.escape`): a test or routine name cannot become markup.
"""

from __future__ import annotations

import os

from gmonlens.output.markdown_cells import escape
from gmonlens.suites.index_json import HOTTEST
from gmonlens.suites.model import (
    FAILED,
    INTERRUPTED,
    NOT_RUN,
    PASSED,
    SKIPPED,
    STATUSES,
    TIMEOUT,
    SuiteRun,
    TestResult,
)

MAX_TESTS = 100
_ICON = {PASSED: "✅", FAILED: "❌", SKIPPED: "⏭️", TIMEOUT: "⏱️", NOT_RUN: "⚠️", INTERRUPTED: "⏹️"}


def _seconds(t: TestResult) -> str:
    s = t.seconds
    if s is None:
        return "–"
    error = sum((b.seconds_error or 0.0) ** 2 for b in t.binaries) ** 0.5
    return f"{s:.2f} ± {error:.2f}"


def _row(t: TestResult) -> str:
    samples = sum(b.samples for b in t.binaries)
    calls = sum(b.calls for b in t.binaries)
    status = f"{_ICON.get(t.status, '')} {t.status}"
    return f"| {escape(t.spec.name)} | {status} | {_seconds(t)} | {samples:,.0f} | {calls:,} | {t.duration:.2f} |"


def _hottest(t: TestResult) -> list[str]:
    if not t.binaries:
        return []
    lines = [f"<details><summary>{escape(t.spec.name)}: {_seconds(t)} s</summary>", ""]
    lines += ["| routine | binary | self s | total s | calls |", "|---|---|--:|--:|--:|"]
    for b in t.binaries:
        ranked = sorted(b.routines, key=lambda r: (-r.self_samples, -r.calls, r.name))[:HOTTEST]
        for r in ranked:
            self_s = f"{r.self_samples / b.hz:.2f}" if b.hz else "–"
            total_s = f"{r.total_samples / b.hz:.2f}" if b.hz else "–"
            lines.append(
                f"| {escape(r.name)} | {escape(os.path.basename(b.binary))} | {self_s} | {total_s} | {r.calls:,} |"
            )
    return [*lines, "", "</details>"]


def _suite(run: SuiteRun) -> list[str]:
    lines = ["", "| whole suite | tests | seconds | samples | calls |", "|---|--:|--:|--:|--:|"]
    for binary in run.binaries:
        parts = [b for t in run.tests for b in t.binaries if b.binary == binary]
        samples = sum(b.samples for b in parts)
        hz = next((b.hz for b in parts if b.hz > 0), 0)
        seconds = f"{samples / hz:.2f}" if hz else "–"
        calls = sum(b.calls for b in parts)
        lines.append(
            f"| {escape(os.path.basename(binary))} | {len(parts)} | {seconds} | {samples:,.0f} | {calls:,} |"
        )
    return lines


def render_markdown(run: SuiteRun) -> str:
    """The summary (module docstring)."""
    tally = ", ".join(f"{run.count(s)} {s}" for s in STATUSES if run.count(s)) or "none run"
    lines = [f"### gmonlens test: {len(run.tests)} tests, {tally}", ""]
    if run.interrupted:
        lines += ["Interrupted: the tests that were running are marked so, the rest were not run.", ""]
    lines += ["| test | status | seconds | samples | calls | wall s |", "|---|---|--:|--:|--:|--:|"]
    ranked = sorted(run.tests, key=lambda t: (-(t.seconds or 0.0), -t.duration, t.spec.name))
    lines += [_row(t) for t in ranked[:MAX_TESTS]]
    if len(ranked) > MAX_TESTS:
        lines.append(f"| … and {len(ranked) - MAX_TESTS} more tests | | | | | |")
    if run.binaries:
        lines += _suite(run)
    hot = [line for t in ranked[:MAX_TESTS] for line in _hottest(t)]
    if hot:
        lines += ["", "#### Hottest routines per test", "", *hot]
    return "\n".join(lines) + "\n"
