"""The `gmonlens` command line's engine commands: `report`, `diff`, `export`, `disasm`, `check`,
`record`, `test` (usage, version, dispatch, and the one place that turns errors into exit statuses).
`serve` and `mcp` are the servers' (`gmonlens_cli.main` dispatches them before coming here).

Exit statuses: 0 done, 1 bad input (one line naming the file), 2 usage, 3 `diff --fail-over`,
70 out of memory or input nested too deeply, 130 interrupted; `check`: 0 pass, 1 a budget
failed, 2 the budgets could not be checked (check_command.py); `record` returns the command's own
status, or 125 (no usable profile), 126 (COMMAND cannot be executed), 127 (not found); `test`: 0
every test passed, 1 a test failed, 2 the suite could not be run, 125, 126, 127 as `record`
(test_command.py)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from gmonlens import __version__
from gmonlens.common.errors import GmonlensError, UsageError

from .gprof_args import options_help, parse_report_args

HELP = """usage: gmonlens report [options] [BINARY [PROFILE...]]
       gmonlens diff [options] BASE_BINARY BASE_PROFILE... -- NEW_BINARY NEW_PROFILE...
       gmonlens diff [options] BINARY BASE_PROFILE NEW_PROFILE
       gmonlens export --format callgrind|pprof|dot [gprof options] [BINARY [PROFILE...]] [-o FILE]
       gmonlens disasm [options] SYMSPEC [BINARY [PROFILE...]]
       gmonlens check [--json] [--junit FILE] [--markdown FILE] BUDGETS.yaml
       gmonlens check --suggest [--headroom PCT] [-o FILE] BINARY [PROFILE...]
       gmonlens record [--out DIR] [--json] [--runs N | --precision P%] [--on-signal=exit]
                       -- COMMAND [ARGS...]
       gmonlens test [--out DIR] [--json] [-j N] [--per test|suite] [--markdown FILE]
                     -- RUNNER [ARGS...]
       gmonlens serve [--stdio]
       gmonlens mcp [--workspace DIR] [BINARY PROFILE...]
       gmonlens --version

report  prints what `gprof -b` prints for the same options (defaults: a.out gmon.out); gprof's
        options, with gprof's long names and argument rules (SPEC: a gprof symspec):
{options}diff    two profiles side by side, changes tested against sampling noise (README, "diff");
        --json, --fail-over PERCENT (exit 3), --threshold Z, --normalize.
export  writes the profile for callgrind_annotate/KCachegrind, go tool pprof or Graphviz
        (README, "gmonlens export"); also --source-map FROM=TO, --node-thres/--edge-thres PCT (dot).
disasm  a routine's instructions with gprof's figures (README, "gmonlens disasm");
        --syntax att|intel, --json, --color, --source-map FROM=TO; gprof's analysis options apply.
check   performance budgets for CI: exact call counts, scaling exponents, noise-aware time
        (README, "gmonlens check"); exit 0 pass, 1 a budget failed, 2 cannot check.
record  runs COMMAND so that each of its processes writes its own profile into DIR, then says what
        came of it: the profiles, the top routines, and why a profile is missing or weak, with
        the fix (README, "gmonlens record"; gmonlens record --help).
test    runs a test suite (ctest, meson test, a GoogleTest or Catch2 binary, a .yaml list of
        commands) with a profile per test in DIR, an index, and the tests by time (README,
        "gmonlens test"; gmonlens test --help).
serve   the language server, speaking LSP on stdin/stdout.
mcp     a Model Context Protocol server (stdio) for coding agents: the profile's figures as tools
        (README, "gmonlens mcp"); finds the program and profiles in DIR (default: .) or takes them.
"""

# gprof -v prints "GNU gprof (GNU Binutils for Debian) 2.40", its origin and its licence: the same
# three lines, for gmonlens.
VERSION = f"""gmonlens report (gmonlens) {__version__}
Computes GNU gprof 2.40's reports from gmon.out and the ELF binary, byte for byte.
This program is free software (MIT licence).  This program has absolutely no warranty.
"""


def help_text() -> str:
    return HELP.format(options=options_help())


def run(argv: Sequence[str]) -> int:
    """Run `gmonlens report|diff|export|disasm|check|record|test ...` (argv without the program name); the exit status."""
    argv = list(argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(help_text(), end="", file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] in ("-V", "-v", "--version"):
        print(VERSION, end="")
        return 0
    cmd, rest = argv[0], argv[1:]
    for stream in (sys.stdout, sys.stderr):  # file and symbol names are bytes: write them back as such
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="surrogateescape")
    if cmd not in ("report", "diff", "export", "disasm", "check", "record", "test"):
        print(
            f"gmonlens: unknown command '{cmd}' (try: report, diff, export, disasm, check, record, test, serve, mcp)",
            file=sys.stderr,
        )
        return 2
    try:
        handlers = {"diff": _diff, "export": _export, "disasm": _disasm, "report": _report}
        handlers.update(check=_check, record=_record, test=_test)
        return handlers[cmd](rest)
    except UsageError as e:
        print(f"gmonlens {cmd}: {e.message}", file=sys.stderr)
        return 2
    except GmonlensError as e:
        print(f"gmonlens: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except MemoryError:
        print("gmonlens: out of memory", file=sys.stderr)
        return 70
    except RecursionError:
        print("gmonlens: input nested too deeply", file=sys.stderr)
        return 70


def _diff(rest: list[str]) -> int:
    from .diff_command import USAGE as DIFF_USAGE
    from .diff_command import parse_diff_args, run_diff

    if not rest or rest[0] in ("-h", "--help"):
        print(DIFF_USAGE, end="", file=sys.stdout if rest else sys.stderr)
        return 0 if rest else 2
    if any(a in ("-v", "--version") for a in rest):  # as `report -v` (gprof acts on it at once)
        print(VERSION, end="")
        return 0
    return run_diff(parse_diff_args(rest))


def _export(rest: list[str]) -> int:
    from .export_command import EXPORT_HELP, parse_export_args, run_export

    if any(a in ("-h", "--help") for a in rest):
        print(EXPORT_HELP, end="")
        return 0
    return run_export(parse_export_args(rest))


def _disasm(rest: list[str]) -> int:
    from .disasm_command import USAGE as DISASM_USAGE
    from .disasm_command import parse_disasm_args, run_disasm

    if not rest or any(a in ("-h", "--help") for a in rest):
        print(DISASM_USAGE, end="", file=sys.stdout if rest else sys.stderr)
        return 0 if rest else 2
    return run_disasm(parse_disasm_args(rest))


def _check(rest: list[str]) -> int:
    from .check_command import USAGE as CHECK_USAGE
    from .check_command import parse_check_args, run_check_command

    if not rest or any(a in ("-h", "--help") for a in rest):
        print(CHECK_USAGE, end="", file=sys.stdout if rest else sys.stderr)
        return 0 if rest else 2
    return run_check_command(parse_check_args(rest))


def _record(rest: list[str]) -> int:
    from .record_command import USAGE as RECORD_USAGE
    from .record_command import parse_record_args, run_record

    if not rest:
        print(RECORD_USAGE, end="", file=sys.stderr)
        return 2
    args = parse_record_args(rest)
    if args.help:
        print(RECORD_USAGE, end="")
        return 0
    return run_record(args)


def _test(rest: list[str]) -> int:
    from .test_command import USAGE as TEST_USAGE
    from .test_command import parse_test_args, run_test_command

    if not rest:
        print(TEST_USAGE, end="", file=sys.stderr)
        return 2
    args = parse_test_args(rest)
    if args.help:
        print(TEST_USAGE, end="")
        return 0
    return run_test_command(args)


def _report(rest: list[str]) -> int:
    args = parse_report_args(rest)
    if args.help:
        print(help_text(), end="")
        return 0
    if args.version:
        print(VERSION, end="")
        return 0
    from .report_command import run_report

    return run_report(args)
