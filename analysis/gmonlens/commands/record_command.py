"""`gmonlens record`: run a command under gprof's profiling and leave a usable profile, or the line
that says why there is none. A thin front end: arguments in (`parse_record_args`), the engine's
`runs.recording.record`, text (standard error) or `--json` (standard output) out."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from gmonlens.common.errors import UsageError

USAGE = """usage: gmonlens record [options] [--] COMMAND [ARGS...]

Runs COMMAND (found through PATH) so that every process it starts writes its own gprof profile
into DIR, then says what came of it: the profiles (per process and program), each program's top
routines with their sampling error, and the diagnosis, each finding with its fix (README,
"gmonlens record"). COMMAND's standard error passes through gmonlens (still a terminal when
gmonlens's is one); with --json its standard output goes to standard error.

options:
  -o, --out DIR         where the profiles go (default: gmonlens-record; created 0700; a symbolic
                        link, or a directory others may write to, is refused)
  --json                print the recording as JSON (schema gmonlens-record/1) on standard output
  --runs N              run N times and sum the profiles (with --precision: at most N runs)
  --precision P%        repeat (at most --runs, default 20) until the hottest routines' relative
                        sampling error, 1/sqrt(samples), is at most P percent
  --on-signal=exit      make SIGINT, SIGTERM and SIGHUP call exit(), so a stopped program still
                        writes its profile (needs a C compiler for gmonlens's helper library)
  --arcs N|auto|default glibc's call-graph buffer: N entries, sized from the program's call sites
                        when glibc's would be smaller (auto, the default), or glibc's own size
  --binary FILE         a program the command may run that wrote profiles (to name them); repeat
  --no-preload          do not preload gmonlens's helper library (no process log: profiles are
                        named from the command and --binary only)
  -h, --help            this help

exit status: COMMAND's own (128 + N when it was killed by signal N), or 125 when it made no usable
profile, 126 when COMMAND cannot be executed, 127 when it is not found, 2 for a usage error, 1
when DIR cannot be used.
"""

_VALUED = {"-o": "out", "--out": "out", "--runs": "runs", "--precision": "precision", "--on-signal": "on_signal",
           "--arcs": "arcs", "--binary": "binary"}  # fmt: skip


@dataclass
class RecordArgs:
    out: str = "gmonlens-record"
    json: bool = False
    runs: int | None = None
    precision: float | None = None
    on_signal_exit: bool = False
    arcs: int | str | None = None
    binaries: list[str] = field(default_factory=list)
    preload: bool = True
    help: bool = False
    command: list[str] = field(default_factory=list)


def _number(option: str, text: str, kind: type) -> float:
    try:
        value = kind(text.strip().removesuffix("%"))
    except ValueError:
        raise UsageError(None, f"{option} needs a number, not '{text}'") from None
    return float(value)


def _set(args: RecordArgs, option: str, value: str) -> None:
    name = _VALUED[option]
    if name == "out":
        args.out = value
    elif name == "runs":
        args.runs = int(_number(option, value, int))
    elif name == "precision":
        args.precision = _number(option, value, float)
    elif name == "on_signal":
        if value != "exit":
            raise UsageError(None, f"--on-signal takes 'exit', not '{value}'")
        args.on_signal_exit = True
    elif name == "arcs":
        args.arcs = value if value in ("auto", "default") else int(_number(option, value, int))
    else:
        args.binaries.append(value)


def parse_record_args(argv: Sequence[str]) -> RecordArgs:
    """Options up to `--` or the first word that is not one; the rest is COMMAND and its arguments."""
    args = RecordArgs()
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            i += 1
            break
        if not word.startswith("-") or word == "-":
            break
        name, eq, value = word.partition("=")
        if name in _VALUED:
            if not eq:
                if i + 1 >= len(argv):
                    raise UsageError(None, f"{name} needs a value")
                i += 1
                value = argv[i]
            _set(args, name, value)
        elif word == "--json":
            args.json = True
        elif word == "--no-preload":
            args.preload = False
        elif word in ("-h", "--help"):
            args.help = True
        else:
            raise UsageError(None, f"unknown option '{word}' (gmonlens record --help)")
        i += 1
    args.command = list(argv[i:])
    if not args.command and not args.help:
        raise UsageError(None, "no command to run (gmonlens record [options] -- COMMAND [ARGS...])")
    return args


def run_record(args: RecordArgs) -> int:
    """Record, print, and return the exit status (module docstring)."""
    import json

    from gmonlens.runs.command import CommandNotFound, NotExecutable
    from gmonlens.runs.diagnose import Diagnosis
    from gmonlens.runs.record_json import to_json
    from gmonlens.runs.record_text import diagnosis_lines, render
    from gmonlens.runs.recording import RecordOptions, record

    def notify(finding: Diagnosis) -> None:
        for line in diagnosis_lines(finding):
            print(line, file=sys.stderr, flush=True)

    options = RecordOptions(
        runs=args.runs,
        precision=args.precision,
        on_signal_exit=args.on_signal_exit,
        arcs=args.arcs,
        binaries=tuple(os.path.abspath(b) for b in args.binaries),
        preload=args.preload,
        stdout=2 if args.json else None,
        adopt_orphans=True,
        notify=notify,
    )
    try:
        rec = record(args.command, os.getcwd(), args.out, options)
    except CommandNotFound as e:
        print(f"gmonlens record: {e}", file=sys.stderr)
        return 127
    except NotExecutable as e:
        print(f"gmonlens record: {e}", file=sys.stderr)
        return 126
    sys.stderr.write(render(rec))
    sys.stderr.flush()
    if args.json:
        json.dump(to_json(rec), sys.stdout, indent=1)
        sys.stdout.write("\n")
        sys.stdout.flush()
    return rec.exit_status
