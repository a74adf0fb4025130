"""`gmonlens check --junit FILE`: the verdicts as JUnit XML, the format Jenkins (its JUnit and
xUnit plugins, schema `junit-10.xsd`) and GitLab (`artifacts:reports:junit`) read (pure).

    <testsuites name="gmonlens check" tests= failures= errors= time="0.000">
      <testsuite name=BUDGETS tests= failures= errors= skipped= time="0.000">
        <testcase classname="gmonlens check" name="rule 1: calls(hash) <= 1,000,000" time="0.000"/>
        <testcase ...><failure type="budget" message=...>details</failure></testcase>
        <testcase ...><skipped type="undecided" message="not enough samples to decide: ..."/></testcase>
        <testcase ...><error type="not checked" message=...>...</error></testcase>
      </testsuite>
    </testsuites>

One test case per rule, or per rule and test when the profiles are per test (`classname` is
then the test's name, so CI groups the rules under their tests). Undecided rules are skipped
test cases, never failures; rules that could not be checked are errors; errors that belong to
no rule (a profile that cannot be read) are error test cases of their own. Text is XML-escaped
by ElementTree; characters XML 1.0 cannot carry (control characters) are written as `\\xNN`.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from gmonlens.check.results import CheckReport, Outcome, RuleResult

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _details(o: Outcome) -> str:
    lines = [f"measured: {o.shown}"]
    if o.reason:
        lines.append(o.reason)
    lines += [a.text() for a in o.arcs]
    return _clean("\n".join(lines))


def _case(suite: ET.Element, classname: str, name: str, o: Outcome | None, problems: tuple[str, ...]) -> str:
    case = ET.SubElement(suite, "testcase", classname=_clean(classname), name=_clean(name), time="0.000")
    if problems:
        e = ET.SubElement(case, "error", type="not checked", message=_clean(problems[0]))
        e.text = _clean("\n".join(problems))
        return "error"
    if o is None:
        ET.SubElement(case, "skipped", type="undecided", message="no profile checked")
        return "skipped"
    if o.verdict == "fail":
        f = ET.SubElement(case, "failure", type="budget", message=_clean(o.reason or o.shown))
        f.text = _details(o)
        return "failure"
    if o.verdict == "undecided":
        ET.SubElement(case, "skipped", type="undecided", message=_clean(o.reason or "undecided"))
        return "skipped"
    out = ET.SubElement(case, "system-out")
    out.text = _details(o)
    return "pass"


def _rule_cases(suite: ET.Element, r: RuleResult) -> list[str]:
    name = f"rule {r.rule.index}: {r.rule.title()}"
    if r.not_checked or not r.per_test:
        return [_case(suite, "gmonlens check", name, r.deciding, r.not_checked)]
    return [_case(suite, o.test or "gmonlens check", name, o, ()) for o in r.outcomes]


def render_junit(report: CheckReport) -> bytes:
    """The report as JUnit XML bytes (UTF-8, with its declaration)."""
    root = ET.Element("testsuites", name="gmonlens check")
    suite = ET.SubElement(root, "testsuite", name=_clean(report.budgets.path))
    kinds: list[str] = []
    for r in report.results:
        kinds += _rule_cases(suite, r)
    for e in report.errors:
        if not any(e.endswith(p) for r in report.results for p in r.not_checked):
            kinds.append(_case(suite, "gmonlens check", "profiles", None, (e,)))
    counts = {k: str(kinds.count(k)) for k in ("failure", "error", "skipped")}
    suite.attrib.update(
        tests=str(len(kinds)),
        failures=counts["failure"],
        errors=counts["error"],
        skipped=counts["skipped"],
        time="0.000",
    )
    root.attrib.update(
        tests=str(len(kinds)), failures=counts["failure"], errors=counts["error"], time="0.000"
    )
    ET.indent(root)
    body: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=False)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + body + b"\n"
