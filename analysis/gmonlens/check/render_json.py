"""`gmonlens check --json`: schema `gmonlens-check/1` (pure).

    {"schema": "gmonlens-check/1", "budgets": PATH, "threshold": Z, "verdict": "pass"|"fail"|"undecided",
     "summary": {"pass": N, "fail": N, "undecided": N, "not_checked": N},
     "rules": [RULE, ...],               # one per rule, in the file's order
     "errors": [LINE, ...], "warnings": [LINE, ...], "tests": [NAME, ...]}

RULE: `index` (1-based), `line`, `kind`, `rule` (the rule in words), `name` (the user's, or
null), `routines` (the names as written), `verdict` (`pass`, `fail` or `undecided`; a rule that
could not be checked is `undecided` with its `errors`), `measured` (a count, a percent, seconds,
a list of names, or for scaling rules a list of {"size", "value"}), `limit` (an object: `max`,
`min`, `equal`, `max_percent`, `max_seconds`, `max_increase_percent`, `max_order`, `max_new`,
`reached`, `not_reached` as the rule sets), `shown` and `reason` (text), `arcs` (the arcs behind
the figure: `caller`, `callee`, `count`, `baseline`, `seconds`, `baseline_seconds`); time rules
add `low` and `high` (the figure's bounds at the threshold) and `z`; scaling rules add
`exponent`, `exponent_error` (its ±: one standard error), `order_exponent` (the declared order's
own exponent over the sizes) and `like`. With per-test profiles, the figures are those of the
test that decided the verdict (`test`), and `tests` lists every test's outcome (`test`,
`verdict`, `measured`, `shown`, `reason`, `arcs`).
"""

from __future__ import annotations

from typing import Any

from gmonlens.check.results import CheckReport, Outcome, RuleResult, worst

SCHEMA = "gmonlens-check/1"


def _measured(o: Outcome) -> Any:
    m = o.measured
    if isinstance(m, tuple) and m and isinstance(m[0], tuple):
        return [{"size": n, "value": v} for n, v in m]
    return list(m) if isinstance(m, tuple) else m


def _outcome(o: Outcome) -> dict[str, Any]:
    out: dict[str, Any] = {
        "verdict": o.verdict,
        "measured": _measured(o),
        "shown": o.shown,
        "reason": o.reason,
        "arcs": [
            {
                "caller": a.caller, "callee": a.callee, "count": a.count, "baseline": a.baseline,
                "seconds": a.seconds, "baseline_seconds": a.baseline_seconds,
            }
            for a in o.arcs
        ],
    }  # fmt: skip
    for key in ("low", "high", "z", "exponent", "exponent_error", "order_exponent", "like"):
        value = getattr(o, key)
        if value is not None:
            out[key] = value
    return out


def rule_json(r: RuleResult) -> dict[str, Any]:
    rule = r.rule
    out: dict[str, Any] = {
        "index": rule.index,
        "line": rule.line or None,
        "kind": rule.kind,
        "rule": rule.describe(),
        "name": rule.name,
        "routines": list(rule.routines()),
        "verdict": r.verdict,
        "limit": rule.limit(),
    }
    o = r.deciding
    out.update(_outcome(o) if o is not None else {"measured": None, "shown": "", "reason": "", "arcs": []})
    out["test"] = o.test if o is not None else None
    if r.per_test:
        out["tests"] = [{"test": x.test, **_outcome(x)} for x in r.outcomes]
    if r.not_checked:
        out["errors"] = list(r.not_checked)
    return out


def to_json(report: CheckReport) -> dict[str, Any]:
    """The report as `gmonlens-check/1` (module doc)."""
    rules = [rule_json(r) for r in report.results]
    return {
        "schema": SCHEMA,
        "budgets": report.budgets.path,
        "threshold": report.threshold,
        "verdict": worst([r.verdict for r in report.results]),
        "summary": {
            "pass": report.count("pass"),
            "fail": report.count("fail"),
            "undecided": report.count("undecided"),
            "not_checked": report.not_checked(),
        },
        "rules": rules,
        "errors": list(report.errors),
        "warnings": list(report.warnings),
        "tests": list(report.tests),
    }
