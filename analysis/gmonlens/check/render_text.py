"""`gmonlens check`'s text: a line per rule (verdict, the rule, what was measured, why), the arcs
behind a failure or an undecided figure, the tests that did not pass, and a summary line (pure).

    PASS       calls(hash) <= 1,000,000: 1,000,000
    FAIL       calls(hash) == 10,000,000: 11,000,000 (calls 11,000,000, allowed == 10,000,000)
                 process -> hash: 11,000,000 (baseline 10,000,000, +1,000,000)
    UNDECIDED  time share(sort) <= 30%: 28.1% (24.0-32.5%) (not enough samples to decide: ...)
    ERROR      calls(hsh) <= 10: no routine 'hsh' in prog (nearest: hash)
    4 rules: 1 passed, 1 failed, 1 undecided, 1 not checked
"""

from __future__ import annotations

from gmonlens.check.results import CheckReport, Outcome, RuleResult

MAX_ARCS = 5
MAX_TESTS = 20
_WIDTH = 11


def _line(o: Outcome) -> str:
    return o.shown + (f" ({o.reason})" if o.reason else "")


def _arcs(o: Outcome, indent: str) -> list[str]:
    if o.verdict == "pass":
        return []
    return [f"{indent}{a.text()}" for a in o.arcs[:MAX_ARCS]]


def _tests(r: RuleResult) -> list[str]:
    out = []
    shown = [o for o in r.outcomes if o.verdict != "pass"]
    for o in shown[:MAX_TESTS]:
        out.append(f"{' ' * _WIDTH}  {o.verdict}: {o.test}: {_line(o)}")
        out += _arcs(o, " " * (_WIDTH + 4))
    if len(shown) > MAX_TESTS:
        out.append(f"{' ' * _WIDTH}  ... and {len(shown) - MAX_TESTS} more tests")
    return out


def rule_lines(r: RuleResult) -> list[str]:
    """The lines of one rule's result."""
    title = r.rule.title()
    if r.not_checked:
        return [f"{'ERROR':<{_WIDTH}}{title}: {p}" for p in r.not_checked]
    head = f"{r.verdict.upper():<{_WIDTH}}{title}"
    o = r.deciding
    if o is None:
        return [f"{head}: no profile checked"]
    if r.per_test:
        counts = {v: sum(1 for x in r.outcomes if x.verdict == v) for v in ("pass", "fail", "undecided")}
        tally = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
        return [f"{head}: {len(r.outcomes)} tests ({tally})", *_tests(r)]
    return [f"{head}: {_line(o)}", *_arcs(o, " " * (_WIDTH + 2))]


def render_text(report: CheckReport) -> str:
    """The whole report (module doc)."""
    b = report.budgets
    lines = []
    if b.current is not None:
        lines.append(f"gmonlens check {b.path}: {b.current.binary}, {b.current.profiles.text()}")
    else:
        lines.append(f"gmonlens check {b.path}")
    for r in report.results:
        lines += rule_lines(r)
    counts = [
        f"{report.count('pass')} passed",
        f"{report.count('fail')} failed",
        f"{report.count('undecided')} undecided",
    ]
    if report.not_checked():
        counts.append(f"{report.not_checked()} not checked")
    lines.append(f"{len(report.results)} rules: {', '.join(counts)}")
    return "\n".join(lines) + "\n"
