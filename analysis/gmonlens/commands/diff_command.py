"""`gmonlens diff`: two profiles side by side (a thin front end over gmonlens.profile.diff; no pygls).

    gmonlens diff [options] BASE_BINARY BASE_PROFILE... -- NEW_BINARY NEW_PROFILE...
    gmonlens diff [options] BINARY BASE_PROFILE NEW_PROFILE

Options: gprof's (symspecs filter the table as they filter the report), plus --json,
--fail-over PERCENT (exit 3 when a routine grew by more than PERCENT beyond noise),
--threshold Z (noise threshold, default 3) and --normalize (compare shares of runs of different
lengths).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

from gmonlens.common.errors import UsageError

from .gprof_args import FLAT, GRAPH, ReportArgs, parse_report_args

USAGE = """usage: gmonlens diff [options] BASE_BINARY BASE_PROFILE... -- NEW_BINARY NEW_PROFILE...
       gmonlens diff [options] BINARY BASE_PROFILE NEW_PROFILE
options: gprof's symspec and analysis options (-p -P -q -Q -e -E -f -F -n -N -k -a -c -D -O),
         --json, --fail-over PERCENT (exit 3 on a growth beyond it and beyond noise),
         --threshold Z (|z| for "beyond noise", default 3), --normalize (compare shares of the runs)
"""
EXIT_FAILED = 3


@dataclass
class DiffArgs:
    report: ReportArgs
    base: tuple[str, list[str]]
    new: tuple[str, list[str]]
    fail_over: float | None = None
    threshold: float = 3.0
    normalize: bool = False


def _number(flag: str, text: str) -> float:
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise UsageError(None, f"{flag} needs a number, not '{text}'") from None
    if not value >= 0 or value == float("inf"):
        raise UsageError(None, f"{flag} needs a non-negative number, not '{text}'")
    return value


def _strip_extras(argv: list[str], extra: dict[str, float]) -> list[str]:
    """Remove diff's own options (--fail-over, --threshold, --normalize) into `extra`."""
    rest: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        name, eq, val = a.partition("=")
        if name in ("--fail-over", "--threshold"):
            if not eq:
                if i >= len(argv):
                    raise UsageError(None, f"option '{name}' requires an argument")
                val = argv[i]
                i += 1
            extra[name] = _number(name, val)
        elif a == "--normalize":
            extra[a] = 1.0
        else:
            rest.append(a)
    return rest


def parse_diff_args(argv: Sequence[str]) -> DiffArgs:
    """Options may stand on either side of `--`; operands are taken per side."""
    extra: dict[str, float] = {}
    two_sided = "--" in argv
    split = list(argv).index("--") if two_sided else len(argv)
    left = _strip_extras(list(argv[:split]), extra)
    right = _strip_extras(list(argv[split + 1 :]), extra)
    report = parse_report_args(left + right) if two_sided else parse_report_args(left)
    if report.sum_file:
        raise UsageError(None, "-s (gmon.sum) does not apply to diff")
    if report.lines:
        raise UsageError(None, "-l (line granularity) does not apply to diff: routines are compared")
    if two_sided:
        ops, new_ops = parse_report_args(left).operands, parse_report_args(right).operands
        if len(ops) < 2 or len(new_ops) < 2:
            raise UsageError(None, "need BASE_BINARY BASE_PROFILE... -- NEW_BINARY NEW_PROFILE...")
        base, new = (ops[0], ops[1:]), (new_ops[0], new_ops[1:])
    elif len(report.operands) == 3:
        ops = report.operands
        base, new = (ops[0], [ops[1]]), (ops[0], [ops[2]])
    else:
        raise UsageError(None, "need BINARY BASE_PROFILE NEW_PROFILE, or two sides separated by '--'")
    threshold = extra.get("--threshold", 3.0)
    if threshold <= 0:
        raise UsageError(None, "--threshold must be above 0")
    return DiffArgs(report, base, new, extra.get("--fail-over"), threshold, "--normalize" in extra)


def run_diff(args: DiffArgs) -> int:
    from gmonlens.load.loader import load_profile
    from gmonlens.output.diff_report import render_text, to_json
    from gmonlens.profile.diff import diff_profiles, failures

    for w in args.report.warnings:
        print(f"gmonlens: warning: {w}", file=sys.stderr)
    opts = args.report.analysis
    base = load_profile(args.base[0], args.base[1], opts)
    new = load_profile(args.new[0], args.new[1], opts)
    for p in (*base.problems, *new.problems):
        print(f"gmonlens: warning: {p}", file=sys.stderr)
    styles = args.report.styles
    d = diff_profiles(
        base,
        new,
        threshold=args.threshold,
        normalize=args.normalize,
        flat=not styles or FLAT in styles,
        graph=not styles or GRAPH in styles,
    )
    failed = failures(d, args.fail_over) if args.fail_over is not None else None
    if args.report.json:
        import json

        json.dump(to_json(d, args.base, args.new, failed), sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(d, args.base, args.new))
    if failed:
        print(
            f"gmonlens diff: {len(failed)} routine(s) grew by more than {args.fail_over:g}% beyond noise:",
            file=sys.stderr,
        )
        for r, why in failed:
            print(f"  {r.display_name}: {why}", file=sys.stderr)
        return EXIT_FAILED
    return 0
