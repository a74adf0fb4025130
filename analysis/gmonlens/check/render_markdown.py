"""`gmonlens check --markdown FILE`: the verdicts as a pull-request comment (GitHub- and
GitLab-flavoured Markdown; pure).

A heading with the tally, then one table row per rule (verdict, the rule with its limit,
measured, why and the arcs that carry a change), then, for rules checked per test, the tests that did not pass in a
collapsed `<details>` block. Every name and figure from the profile or the budget file is
escaped (`output.markdown_cells.escape`): a routine called `operator|` or `a*b*` cannot break the table, and `<` `>`
`&` are entities, so nothing in a name becomes markup.
"""

from __future__ import annotations

from gmonlens.check.results import CheckReport, Outcome, RuleResult
from gmonlens.output.markdown_cells import escape

MAX_TESTS = 50
MAX_ARCS = 3
_ICON = {"pass": "✅", "fail": "❌", "undecided": "❔"}


def _why(o: Outcome) -> str:
    bits = [escape(o.reason)] if o.reason else []
    if o.verdict != "pass":
        bits += [escape(a.text()) for a in o.arcs[:MAX_ARCS]]
    return "<br>".join(bits)


def _row(r: RuleResult) -> str:
    title = escape(r.rule.title())
    if r.not_checked:
        return f"| ⚠️ not checked | {title} | | {'<br>'.join(escape(p) for p in r.not_checked)} |"
    o = r.deciding
    icon = f"{_ICON[r.verdict]} {r.verdict}"
    if o is None:
        return f"| {icon} | {title} | | no profile checked |"
    if r.per_test:
        tally = ", ".join(
            f"{sum(1 for x in r.outcomes if x.verdict == v)} {v}" for v in ("pass", "fail", "undecided")
        )
        return f"| {icon} | {title} | {len(r.outcomes)} tests: {tally} | {escape(o.test or '')}: {_why(o)} |"
    return f"| {icon} | {title} | {escape(o.shown)} | {_why(o)} |"


def _details(r: RuleResult) -> list[str]:
    bad = [o for o in r.outcomes if o.verdict != "pass"]
    if not r.per_test or not bad:
        return []
    out = ["", f"<details><summary>{escape(r.rule.title())}: {len(bad)} tests did not pass</summary>", "",
           "| | Test | Measured | Why |", "|---|---|---|---|"]  # fmt: skip
    for o in bad[:MAX_TESTS]:
        out.append(f"| {_ICON[o.verdict]} | {escape(o.test or '')} | {escape(o.shown)} | {_why(o)} |")
    if len(bad) > MAX_TESTS:
        out.append(f"| | ... and {len(bad) - MAX_TESTS} more | | |")
    return [*out, "", "</details>"]


def render_markdown(report: CheckReport) -> str:
    """The report as a Markdown comment (module doc)."""
    fails, undecided, passes = report.count("fail"), report.count("undecided"), report.count("pass")
    head = "❌" if fails or report.errors else "❔" if undecided else "✅"
    tally = f"{fails} failed, {undecided} undecided, {passes} passed"
    if report.not_checked():
        tally += f", {report.not_checked()} not checked"
    lines = [f"### {head} gmonlens check: {tally}", ""]
    b = report.budgets
    if b.current is not None:
        lines += [
            f"Budgets {escape(b.path)} on {escape(b.current.binary)} ({escape(b.current.profiles.text())})",
            "",
        ]
    lines += ["| Verdict | Rule | Measured | Why |", "|---|---|---|---|"]
    lines += [_row(r) for r in report.results]
    for r in report.results:
        lines += _details(r)
    other = [
        e for e in report.errors if not any(e.endswith(p) for r in report.results for p in r.not_checked)
    ]
    if other:
        lines += ["", "**Not checked:**", ""] + [f"- {escape(e)}" for e in other]
    if report.warnings:
        lines += ["", "Warnings:", ""] + [f"- {escape(w)}" for w in report.warnings]
    return "\n".join(lines) + "\n"
