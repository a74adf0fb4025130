"""`load_budgets(path)`: a budget file (YAML) -> `Budgets`, or `YamlFileError` with one line per
problem, each naming the file (and the line and rule at fault). The file is untrusted input: read
by `safe_yaml` (bounded, plain data, no aliases), every key typed and checked (`fields`,
`rule_parse`), unknown keys refused with the nearest known one.

The file (README, "gmonlens check"):

    binary: prog                       # the profiled executable
    profiles: [gmon.out]               # files summed (globs allowed), or a `gmonlens test` folder
    baseline: {binary: prog-base, profiles: [base.out]}   # for the rules against a baseline
    threshold: 3                       # optional: z for time rules (--threshold wins)
    rules:
      - {calls: hash, max: 1000000}
      - ...

Paths are relative to the budget file's folder. A glob (`gmon.out.*`) must match at least one
file (at most MAX_GLOB); a path naming a folder makes the profiles per test (`test_runs`).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable
from itertools import islice

from gmonlens.check.fields import FieldError, Fields, Problems, as_name, as_names, as_number
from gmonlens.check.rule_parse import parse_rule
from gmonlens.check.rules import Budgets, ProfileSource, Rule, Side
from gmonlens.common.safe_yaml import Document, YamlFileError, read_yaml

MAX_RULES = 10_000
MAX_GLOB = 100_000
TOP_KEYS = ("binary", "profiles", "baseline", "rules", "threshold", "version")
_GLOB_CHARS = frozenset("*?[")


class _Paths:
    """Paths of the budget file, relative to its folder (rule_parse.Paths)."""

    def __init__(self, base: str, default_binary: str | None) -> None:
        self.base = base
        self.default_binary = default_binary

    def _join(self, text: str) -> str:
        return text if os.path.isabs(text) else os.path.normpath(os.path.join(self.base, text))

    def files(self, value: object) -> tuple[str, ...]:
        out: list[str] = []
        for text in as_names(value, "profile paths"):
            path = self._join(text)
            if _GLOB_CHARS & set(text):
                pattern = text if os.path.isabs(text) else glob.escape(self.base) + os.sep + text
                found = sorted(islice(glob.iglob(pattern), MAX_GLOB + 1))
                if not found:
                    raise FieldError(f"no file matches {text!r}")
                if len(found) > MAX_GLOB:
                    raise FieldError(f"{text!r} matches more than {MAX_GLOB} files")
                out += [os.path.normpath(p) for p in found]
            else:
                out.append(path)
        if len(out) > MAX_GLOB:
            raise FieldError(f"more than {MAX_GLOB} profile files")
        return tuple(out)

    def source(self, value: object) -> ProfileSource:
        files = self.files(value)
        folders = [p for p in files if os.path.isdir(p)]
        if folders and len(files) > 1:
            raise FieldError(f"a `gmonlens test` folder ({folders[0]}) stands alone, not with other profiles")
        return ProfileSource(folder=files[0]) if folders else ProfileSource(files=files)

    def binary(self, value: object) -> str:
        if value is None:
            if self.default_binary is None:
                raise FieldError("no binary: give 'binary' at the top of the file")
            return self.default_binary
        return self._join(as_name(value, "a path"))


def _baseline(
    value: object, problems: Problems, line: int, paths: _Paths, key_line: Callable[[object], int]
) -> Side | None:
    if not isinstance(value, dict):
        problems.add(line, "baseline", "a mapping {binary: ..., profiles: [...]} is expected")
        return None
    f = Fields(value, problems, line, "baseline", ("binary", "profiles"), key_line)
    binary = f.get("binary", paths.binary) if f.has("binary") else paths.default_binary
    source = f.get("profiles", paths.source, required=True)
    if binary is None and not f.failed:
        f.fail("'binary' is missing (and there is no top-level binary)")
    return Side(binary, source) if binary and source and not f.failed else None


def _rules(doc: Document, value: object, problems: Problems, paths: _Paths, line: int) -> tuple[Rule, ...]:
    if value is None:
        problems.add(line, "", "'rules' is missing")
        return ()
    if not isinstance(value, list) or not value:
        problems.add(line, "rules", "a non-empty list of rules is expected")
        return ()
    if len(value) > MAX_RULES:
        problems.add(line, "rules", f"at most {MAX_RULES} rules")
        return ()
    out = []
    for i, item in enumerate(value, 1):
        rule = parse_rule(item, i, doc.item_line(value, i - 1) or line, problems, paths, doc)
        if rule is not None:
            out.append(rule)
    return tuple(out)


def budgets_from(doc: Document, path: str) -> Budgets:
    """The Budgets a parsed budget file states (module doc); YamlFileError listing every problem."""
    problems = Problems(path)
    data = doc.data
    if not isinstance(data, dict):
        raise YamlFileError(path, [f"{path}: a mapping (binary, profiles, rules) is expected at the top"])
    top = Fields(data, problems, doc.line_of(data), "", TOP_KEYS, lambda k: doc.item_line(data, k))
    base_dir = os.path.dirname(path) or "."
    paths = _Paths(base_dir, None)
    binary = top.get("binary", paths.binary, required=True)
    paths.default_binary = binary
    if top.has("version") and data["version"] != 1:
        top.fail(f"'version': 1 is expected, not {data['version']!r}")
    threshold = top.get("threshold", lambda v: as_number(v, 0.1, 100.0))
    source = top.get("profiles", paths.source)
    baseline = None
    if top.has("baseline"):
        value = data["baseline"]
        line = doc.item_line(data, "baseline")
        baseline = _baseline(value, problems, line, paths, lambda k: doc.item_line(value, k))
    rules = _rules(doc, data.get("rules"), problems, paths, doc.item_line(data, "rules") or top.line)
    _needs(rules, top.has("profiles"), top.has("baseline"), problems)
    if problems.lines:
        raise YamlFileError(path, problems.lines)
    current = Side(binary, source) if binary and source else None
    return Budgets(path, current, baseline, rules, threshold)


def _needs(rules: tuple[Rule, ...], has_profiles: bool, has_baseline: bool, problems: Problems) -> None:
    """A line for each rule whose profiles or baseline the file does not give."""
    for r in rules:
        where = f"rule {r.index} ({r.kind})"
        if r.needs_profiles and not has_profiles:
            problems.add(r.line, where, "needs 'profiles' at the top of the file")
        if r.needs_baseline and not has_baseline:
            problems.add(r.line, where, "needs a baseline: add 'baseline: {binary: ..., profiles: [...]}'")


def load_budgets(path: str) -> Budgets:
    """Read and check the budget file at `path` (module doc)."""
    return budgets_from(read_yaml(path), path)
