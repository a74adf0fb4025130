"""Recording -> the text `gmonlens record` prints on standard error (pure): how the command ended
and what it cost, the profiles made (per process and binary), each binary's top routines with
their sampling error, the repeat loop's outcome, the diagnosis with its fixes, and the command
that reports the profile."""

from __future__ import annotations

import os
import shlex

from gmonlens.common.units import shown
from gmonlens.runs.diagnose import Diagnosis, signal_name
from gmonlens.runs.outdir import PREFIX
from gmonlens.runs.results import Recording
from gmonlens.runs.summary import BinarySummary

HEAD = "gmonlens record"
PROFILES_SHOWN = 12
ROUTINES_SHOWN = 10


def diagnosis_lines(d: Diagnosis) -> list[str]:
    """One finding: `gmonlens record: warning [code]: message`, then its fix."""
    return [f"{HEAD}: {d.severity} [{d.code}]: {d.message}", f"    fix: {d.fix}"]


def _ended(rec: Recording) -> str:
    last = rec.runs[-1]
    if last.signal is not None:
        how = f"killed by {signal_name(last.signal)}"
    else:
        how = f"exit status {last.exit_code}"
    user = sum(r.user_seconds for r in rec.runs)
    system = sum(r.system_seconds for r in rec.runs)
    runs = f"{len(rec.runs)} runs, the last: " if len(rec.runs) > 1 else ""
    return (
        f"{HEAD}: {shlex.join(rec.command.argv)}: {runs}{how}; {user + system:.2f} s of CPU time "
        f"(user {user:.2f} s, system {system:.2f} s)"
    )


def _profiles(rec: Recording) -> list[str]:
    if not rec.profiles:
        return [f"{HEAD}: no profile was written in {rec.out_dir}"]
    out = []
    if rec.command.kind != "elf" and rec.binaries:
        found = ", ".join(b.binary for b in rec.binaries)
        out.append(
            f"{HEAD}: {rec.command.argv[0]} is a {'script' if rec.command.kind == 'script' else 'command'}; the profiles were written by {found}"
        )
    out.append(f"{HEAD}: {len(rec.profiles)} profile{'s' if len(rec.profiles) > 1 else ''} in {rec.out_dir}:")
    for p in rec.profiles[:PROFILES_SHOWN]:
        who = p.binary if p.binary else f"({p.problem})"
        out.append(f"  {os.path.basename(p.path)}  pid {p.pid}  {who}")
    if len(rec.profiles) > PROFILES_SHOWN:
        out.append(f"  ... and {len(rec.profiles) - PROFILES_SHOWN} more (--json lists them all)")
    if rec.left_alone:
        out.append(
            f"  ({len(rec.left_alone)} other profile files in that directory were not made now: not read)"
        )
    return out


def _binary(b: BinarySummary) -> list[str]:
    if b.problem is not None:
        return [f"{HEAD}: {b.binary}: {b.problem}"]
    n = len(b.profiles)
    out = [
        f"{HEAD}: {b.binary}: {n} profile{'s' if n > 1 else ''}, {b.samples:.0f} samples "
        f"({shown(b.seconds)} s at {b.hz} Hz), {b.calls} calls counted"
    ]
    if b.top:
        out.append(f"  {'%time':>6} {'self s':>8} {'samples':>8} {'±err':>6} {'calls':>10}  routine")
    for r in b.top[:ROUTINES_SHOWN]:
        err = f"{r.error_percent:.0f}%" if r.error_percent is not None else "-"
        out.append(
            f"  {r.self_percent:6.1f} {shown(r.self_seconds, '8.2f')} {r.samples:8.1f} {err:>6} {r.calls:10d}  {r.name}"
        )
    return out


def _precision(rec: Recording) -> list[str]:
    p = rec.precision
    if len(rec.runs) < 2 and p.target_percent is None:
        return []
    achieved = f"{p.achieved_percent:.1f}%" if p.achieved_percent is not None else "unknown (no samples)"
    target = (
        f" (target {p.target_percent:g}%: {'met' if p.met else 'not met'})"
        if p.target_percent is not None
        else ""
    )
    watched = f" of {p.binary}" if p.binary else ""
    return [
        f"{HEAD}: {len(rec.runs)} run{'s' if len(rec.runs) > 1 else ''} summed: the hottest routines{watched} are within {achieved}{target}"
    ]


def report_command(rec: Recording, b: BinarySummary) -> str:
    """The shell command that reports `b`'s profiles: DIR/gmon.out.* when they are all of DIR's."""
    words = shlex.join(["gmonlens", "report", b.binary])
    if len(b.profiles) > 2 and len(b.profiles) == len(rec.profiles) and not rec.left_alone:
        return f"{words} {shlex.quote(os.path.join(rec.out_dir, PREFIX))}.*"
    return f"{words} {shlex.join(b.profiles)}"


def render(rec: Recording) -> str:
    """The whole text (module docstring), lines ending in newlines."""
    lines = [_ended(rec), *_profiles(rec)]
    for b in rec.binaries:
        lines += _binary(b)
    lines += _precision(rec)
    for d in rec.diagnosis:
        lines += diagnosis_lines(d)
    if not rec.usable:
        first = next((d for d in rec.diagnosis if d.severity != "note"), None)
        why = first.message if first else "see above"
        lines.append(f"{HEAD}: no usable profile: {why}")
    for b in rec.binaries:
        if b.problem is None:
            lines.append(f"{HEAD}: report: {report_command(rec, b)}")
    return "".join(line + "\n" for line in lines)
