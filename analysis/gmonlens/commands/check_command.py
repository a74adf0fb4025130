"""`gmonlens check`: performance budgets checked on gprof profiles, for CI (a thin front end over
gmonlens.check; no pygls).

    gmonlens check [--json] [--junit FILE] [--markdown FILE] [--threshold Z] [--fail-undecided]
                   [--test NAME] BUDGETS.yaml
    gmonlens check --suggest [--headroom PCT] [--top N] [-o FILE] BINARY [PROFILE...|TEST_FOLDER]

Exit status: 0 every rule passed (undecided ones too, unless --fail-undecided), 1 a rule failed,
2 the budgets could not be checked: a bad budget file (one line per problem), a rule naming a
routine that does not exist or a cycle member's time, a profile unreadable or of another program,
a report file that cannot be written, or bad usage.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gmonlens.common.errors import GmonlensError, UsageError

if TYPE_CHECKING:
    from gmonlens.check.results import CheckReport

USAGE = """usage: gmonlens check [options] BUDGETS.yaml
       gmonlens check --suggest [--headroom PCT] [--top N] [-o FILE] BINARY [PROFILE...|TEST_FOLDER]
options: --json            print the verdicts as JSON (schema gmonlens-check/1) instead of text
         --junit FILE      write them as JUnit XML (Jenkins, GitLab)
         --markdown FILE   write them as Markdown (a pull-request comment)
         --threshold Z     time rules: noise bounds in standard errors (default: the file's, else 3)
         --fail-undecided  exit 1 when a rule cannot decide, as when one fails
         --test NAME       per-test profiles: check test NAME alone (the rules that apply to it)
suggest: a starting budget file from a profile: today's calls plus --headroom PCT (default 10)
         for the --top N (default 20) most called routines; to stdout, or -o FILE
exit status: 0 pass, 1 a rule failed, 2 the budgets could not be checked (README, "gmonlens check")
"""
EXIT_ERROR = 2


@dataclass
class CheckArgs:
    operands: list[str] = field(default_factory=list)
    json: bool = False
    junit: str | None = None
    markdown: str | None = None
    threshold: float | None = None
    fail_undecided: bool = False
    suggest: bool = False
    headroom: float = 10.0
    top: int = 20
    output: str | None = None
    test: str | None = None


_VALUED = ("--junit", "--markdown", "--threshold", "--headroom", "--top", "-o", "--output", "--test")


def _value(flag: str, text: str, args: CheckArgs) -> None:
    if flag == "--test":
        if not text:
            raise UsageError(None, "--test needs a test's name")
        args.test = text
        return
    if flag in ("--junit", "--markdown", "-o", "--output"):
        if not text:
            raise UsageError(None, f"{flag} needs a file name")
        setattr(args, {"-o": "output", "--output": "output"}.get(flag, flag[2:]), text)
        return
    try:
        number = float(text.rstrip("%")) if flag != "--top" else int(text)
    except ValueError:
        raise UsageError(None, f"{flag} needs a number, not '{text}'") from None
    if flag == "--threshold" and not 0 < number <= 100:
        raise UsageError(None, "--threshold must be above 0 (and at most 100)")
    if flag == "--headroom" and not 0 <= number <= 1e6:
        raise UsageError(None, "--headroom must be a percent >= 0")
    if flag == "--top" and not 1 <= number <= 100_000:
        raise UsageError(None, "--top must be from 1 to 100000")
    setattr(args, flag[2:], number)


def parse_check_args(argv: Sequence[str]) -> CheckArgs:
    args = CheckArgs()
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        name, eq, val = a.partition("=")
        if name in _VALUED and (eq or name.startswith("--") or name == "-o"):
            if not eq:
                if i >= len(argv):
                    raise UsageError(None, f"option '{name}' requires an argument")
                val, i = argv[i], i + 1
            _value(name, val, args)
        elif a in ("--json", "--fail-undecided", "--suggest"):
            setattr(args, a[2:].replace("-", "_"), True)
        elif a == "--":
            args.operands += argv[i:]
            break
        elif a.startswith("-") and a != "-":
            raise UsageError(None, f"unknown option '{a}'")
        else:
            args.operands.append(a)
    if args.suggest:
        if not args.operands:
            raise UsageError(None, "--suggest needs BINARY [PROFILE...|TEST_FOLDER]")
    elif len(args.operands) != 1:
        raise UsageError(None, "need one BUDGETS.yaml")
    return args


def _write(path: str, data: bytes, what: str) -> None:
    from gmonlens.common.files import write_file

    write_file(path, data, what)


def _suggest(args: CheckArgs) -> int:
    from gmonlens.check.rules import ProfileSource
    from gmonlens.check.suggest import suggest

    binary, profiles = args.operands[0], args.operands[1:] or ["gmon.out"]
    folder = len(profiles) == 1 and os.path.isdir(profiles[0])
    source = ProfileSource(folder=profiles[0]) if folder else ProfileSource(files=tuple(profiles))
    out_dir = os.path.dirname(os.path.abspath(args.output)) if args.output else os.getcwd()
    text = suggest(binary, source, out_dir, headroom=args.headroom, top=args.top)
    if args.output:
        _write(args.output, text.encode("utf-8", "surrogateescape"), "budget file")
    else:
        sys.stdout.write(text)
    return 0


def run_check_command(args: CheckArgs) -> int:
    if args.suggest:
        try:
            return _suggest(args)
        except GmonlensError as e:
            print(f"gmonlens check: {e}", file=sys.stderr)
            return EXIT_ERROR
    from gmonlens.check.budget_file import load_budgets
    from gmonlens.check.render_json import to_json
    from gmonlens.check.render_text import render_text
    from gmonlens.check.run import run_check
    from gmonlens.common.safe_yaml import YamlFileError

    try:
        budgets = load_budgets(args.operands[0])
    except YamlFileError as e:
        for line in e.lines:
            print(line, file=sys.stderr)
        return EXIT_ERROR
    try:
        report = run_check(budgets, threshold=args.threshold, test=args.test)
    except GmonlensError as e:  # --test names no test of the file's profiles
        print(f"gmonlens check: {e}", file=sys.stderr)
        return EXIT_ERROR
    for w in report.warnings:
        print(f"gmonlens check: warning: {w}", file=sys.stderr)
    try:
        _reports(args, report)
    except GmonlensError as e:
        print(f"gmonlens check: {e}", file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        json.dump(to_json(report), sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(report))
    for line in report.errors:
        print(line, file=sys.stderr)
    return report.exit_status(args.fail_undecided)


def _reports(args: CheckArgs, report: CheckReport) -> None:
    from gmonlens.check.render_junit import render_junit
    from gmonlens.check.render_markdown import render_markdown

    if args.junit:
        _write(args.junit, render_junit(report), "JUnit report")
    if args.markdown:
        _write(args.markdown, render_markdown(report).encode("utf-8", "surrogateescape"), "Markdown report")
