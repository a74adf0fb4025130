"""Why a recording has no usable profile, or why its figures should be read with care: each finding
with a stable `code`, a one-line message and the fix (pure: the recording's facts in).

Codes (severity "error": no usable profile, or none of that process; "warning": the profile is
usable but its figures are weak; "note": something to know):
- `no_profiling_calls` (error; a warning when gprof's start-up is linked, since the histogram
  still records time): the executable calls no profiling routine: compiled without -pg.
- `not_linked_with_pg` (error): it calls mcount but gprof's start-up is not linked: no gmon.out.
- `units_without_pg` (warning): compilation units whose recorded options lack -pg, named.
- `killed_by_signal` (error): the command died of a signal other than a crash's before exit()
  could write its profile; the fix is `--on-signal=exit` (SIGINT, SIGTERM, SIGHUP).
- `stopped_by_signal` (note): --on-signal=exit turned a signal into exit(): the profile covers
  the run up to the signal.
- `exited_without_profile` (error): a profiled process ended without writing its profile: _exit(),
  an exec of a program not built with -pg, a crash (SIGSEGV, SIGABRT, ...), or a write glibc
  reported failing.
- `arcs_overflow` (error): glibc's call-graph buffer overflowed (its message seen): no gmon.out.
- `rate_zero` (error): a histogram whose sampling rate is 0: no time can be computed from it.
- `no_profiling_timer` (error): the run used CPU time but no sample was taken: the system's
  profiling clock does not tick (WSL1; gmonlens checks its own ITIMER_PROF to tell), or the
  program stopped it (setitimer, its own SIGPROF handler) or spent all its time outside its code.
- `few_samples` (warning): fewer than FEW_SAMPLES samples: the time figures are mostly noise.
- `time_outside_program` (warning): the samples cover much less than the CPU time measured (time
  in shared libraries, the kernel, or programs without -pg), with the share in percent.
- `unknown_binary` (warning): a profile no executable known to the recording fits.
- `profiles_not_summed` (error): a binary's profiles could not be read or summed.
- `binary_unreadable` (warning): the command's executable cannot serve gprof (stripped: no
  symbol table), so its profile cannot be read.
- `helper_not_loaded` (note): the dynamic loader refused the helper library in some process (a
  program of another word size): its program is named from COMMAND and `--binary` only.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gmonlens.profile.certainty import FEW_SAMPLES
from gmonlens.runs.collect import ProcessProfile
from gmonlens.runs.command import ResolvedCommand
from gmonlens.runs.launch import RunOutcome
from gmonlens.runs.preflight import PROFILING_CALLS, Preflight
from gmonlens.runs.processes import ProcessHistory
from gmonlens.runs.summary import BinarySummary, relative_error

CRASHES = frozenset(
    {
        signal.SIGSEGV,
        signal.SIGBUS,
        signal.SIGILL,
        signal.SIGFPE,
        signal.SIGABRT,
        signal.SIGTRAP,
        signal.SIGSYS,
    }
)
CATCHABLE = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
# the CPU time measured would have given this many samples: fewer, and no sample (no_profiling_timer)
# or few (time_outside_program) is no finding (at 100 Hz: 0.2 s; no sample in 20 expected: e^-20)
NO_TIMER_SAMPLES = 20
# glibc's mcount's cost per counted call, a low estimate: 4.7 ns (30 M calls of a one-line routine)
# to 7.7 ns (the calc example, 83 M calls) measured on x86-64 as CPU time outside the samples
MCOUNT_SECONDS_PER_CALL = 4e-9
OUTSIDE_SHARE = 0.4  # share of the CPU time outside the samples that is worth saying
UNITS_NAMED = 8


@dataclass(frozen=True)
class Diagnosis:
    code: str
    severity: str  # "error", "warning" or "note"
    message: str
    fix: str
    rerun: tuple[str, ...] = ()  # `gmonlens record` options that fix it by recording again (the fix's)


@dataclass(frozen=True)
class Facts:
    """What one recording saw (all runs)."""

    command: ResolvedCommand
    preflight: Preflight | None  # the command's executable, when it is one
    runs: tuple[RunOutcome, ...]
    profiles: tuple[ProcessProfile, ...]
    binaries: tuple[BinarySummary, ...]
    processes: Mapping[int, ProcessHistory]  # the helper's log (empty without the helper)
    programs: Mapping[str, Preflight]  # programs the log names that left no profile, read
    on_signal_exit: bool
    arcs_requested: int | None
    helper: bool  # the helper library was preloaded
    wsl1: bool = False
    clock_ticks: bool | None = None  # whether ITIMER_PROF fires in gmonlens itself (None: not checked)
    unreadable: str | None = None  # why the command's executable could not be read (stripped?)


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _rerun(facts: Facts, option: str) -> str:
    words = " ".join(facts.command.argv[:4]) + (" ..." if len(facts.command.argv) > 4 else "")
    return f"gmonlens record {option} -- {words}"


def _build(facts: Facts) -> list[Diagnosis]:
    return build_findings(facts.preflight, before_run=not facts.runs, unreadable=facts.unreadable)


_PG_FIX = (
    "compile every source file with -pg as well as linking with it (add -pg to CFLAGS/CXXFLAGS and LDFLAGS; "
    "with CMake, to both the compile and the link options), then rebuild"
)


def _calls_named() -> str:
    return ", ".join(PROFILING_CALLS[:4])


def build_findings(
    pre: Preflight | None, before_run: bool = False, unreadable: str | None = None
) -> list[Diagnosis]:
    """What the executable alone says: no_profiling_calls (compiled without -pg, linked with it),
    not_linked_with_pg, units_without_pg; `binary_unreadable` when it could not be read
    (`unreadable`: why). A program with neither profiling calls nor gprof's start-up may be a
    launcher (make, a shell) whose children are profiled: `before_run` adds a note for it; after
    the run `_no_profile_at_all` says what came of it."""
    if unreadable is not None:
        return [
            Diagnosis(
                "binary_unreadable",
                "warning",
                f"{unreadable}: gprof cannot read the profile of this executable",
                "profile the unstripped build (no -s, no `install -s` or strip), then record again",
            )
        ]
    if pre is None:
        return []
    out = []
    if not pre.profiling_calls and pre.startup_linked:
        out.append(
            Diagnosis(
                "no_profiling_calls",
                "warning",
                f"{pre.binary} makes no profiling calls ({_calls_named()}): it was linked with -pg but "
                "compiled without it, so its histogram records time but no call is counted",
                _PG_FIX,
            )
        )
    elif not pre.profiling_calls and before_run:
        out.append(
            Diagnosis(
                "no_profiling_calls",
                "note",
                f"{pre.binary} makes no profiling calls ({_calls_named()}): it was built without -pg, so only "
                "a program it runs that was built with -pg can write a profile",
                _PG_FIX,
            )
        )
    elif pre.profiling_calls and not pre.startup_linked:
        out.append(
            Diagnosis(
                "not_linked_with_pg",
                "error",
                f"{pre.binary} was compiled with -pg but linked without it: gprof's start-up (gcrt1.o: "
                "__monstartup, _mcleanup) is missing, so no gmon.out is ever written",
                "add -pg to the link command too (LDFLAGS=-pg; with CMake, target_link_options(TARGET "
                "PRIVATE -pg)), then relink",
            )
        )
    if pre.profiling_calls and pre.units_without_pg:
        out.append(_units(pre))
    return out


def _units(pre: Preflight) -> Diagnosis:
    units = pre.units_without_pg
    names = ", ".join(os.path.basename(u.name) or "?" for u in units[:UNITS_NAMED])
    more = f" and {len(units) - UNITS_NAMED} more" if len(units) > UNITS_NAMED else ""
    return Diagnosis(
        "units_without_pg",
        "warning",
        f"{len(units)} of {pre.units} units were compiled without -pg: {names}{more}: their routines get no "
        "call counts (their time is still sampled)",
        "rebuild those files with -pg (look for a target, directory or file whose flags lack it), then "
        "record again",
    )


def _main_profiles(facts: Facts, run: RunOutcome) -> list[ProcessProfile]:
    return [p for p in facts.profiles if p.pid == run.pid]


def _signals(facts: Facts) -> list[Diagnosis]:
    out: list[Diagnosis] = []
    for run in facts.runs:
        history = facts.processes.get(run.pid)
        if history is not None and history.signal:
            name = signal_name(history.signal)
            out.append(
                Diagnosis(
                    "stopped_by_signal",
                    "note",
                    f"the command was stopped by {name}; --on-signal=exit made it exit and write its "
                    "profile: the figures cover the run up to the signal",
                    "nothing to fix; let the program finish for a profile of a whole run",
                )
            )
        if run.signal is None or run.signal in CRASHES or _main_profiles(facts, run):
            continue
        out.append(_killed(facts, run.signal))
    return _once(out)


def _killed(facts: Facts, signum: int) -> Diagnosis:
    name = signal_name(signum)
    message = f"the command was killed by {name} (signal {signum}): a program writes gmon.out only when it calls exit()"
    if signum == signal.SIGKILL:
        fix = (
            "SIGKILL cannot be caught (a timeout's or the out-of-memory killer's?): let the program finish, or "
            f"stop it with SIGTERM or ^C and record with --on-signal=exit ({_rerun(facts, '--on-signal=exit')})"
        )
    elif signum in CATCHABLE and facts.on_signal_exit:
        message += (
            "; --on-signal=exit did not catch it (the program set its own handler, or is statically linked)"
        )
        fix = "make the program's own handler call exit(), or stop it another way"
    elif signum in CATCHABLE:
        fix = f"record with --on-signal=exit, so that {name} makes it exit and write its profile: {_rerun(facts, '--on-signal=exit')}"
        return Diagnosis("killed_by_signal", "error", message, fix, ("--on-signal=exit",))
    else:
        fix = f"do not stop it with {name}; let it finish, or stop it with SIGTERM or ^C and --on-signal=exit"
    return Diagnosis("killed_by_signal", "error", message, fix)


def _once(items: list[Diagnosis]) -> list[Diagnosis]:
    seen: set[tuple[str, str]] = set()
    out = []
    for d in items:
        if (d.code, d.message) not in seen:
            seen.add((d.code, d.message))
            out.append(d)
    return out


def _exit_reason(facts: Facts, run: RunOutcome) -> str:
    history = facts.processes.get(run.pid)
    glibc = [line for kind, line in run.messages if kind in ("profile_not_written", "out_of_memory")]
    if glibc:
        return f"glibc said: {glibc[0]}"
    if run.signal in CRASHES:
        return f"it crashed ({signal_name(run.signal or 0)}) before exit() could write its profile"
    if history is not None and len(history.programs) > 1 and facts.preflight is not None:
        last = history.programs[-1]
        if os.path.realpath(last) != os.path.realpath(facts.preflight.binary):
            return f"it ran {last} (exec), which writes no profile of its own: a profile is written by the program that calls exit()"
    if history is not None and not history.exited and facts.helper:
        return "it ended without calling exit(): _exit(), abort() or an exec of a program without -pg"
    return "it ended without calling exit() (_exit()?), crashed, or exec'd a program without -pg"


def _exits(facts: Facts) -> list[Diagnosis]:
    pre = facts.preflight
    if pre is None or not pre.can_profile:
        return _no_profile_at_all(facts)
    out = []
    for run in facts.runs:
        if _main_profiles(facts, run) or (run.signal is not None and run.signal not in CRASHES):
            continue
        if any(kind == "arcs_overflow" for kind, _ in run.messages):
            continue
        out.append(
            Diagnosis(
                "exited_without_profile",
                "error",
                f"{pre.binary} (pid {run.pid}) wrote no profile: {_exit_reason(facts, run)}",
                "end the program by returning from main() or calling exit(), not _exit(); fix a crash first "
                "(run it under gdb); a program that execs another must be that one's profile, built with -pg",
            )
        )
    return _once(out)


def _no_profile_at_all(facts: Facts) -> list[Diagnosis]:
    """A command that is not itself a profiled program (a program built without -pg, a script,
    make) and made no profile: which programs it ran, and why none wrote one."""
    pre = facts.preflight
    if (
        facts.profiles
        or facts.unreadable
        or (pre is not None and (pre.profiling_calls or pre.startup_linked))
    ):
        return []  # nothing made, but build_findings said why
    own = os.path.realpath(facts.command.path)
    ran = sorted({p for h in facts.processes.values() for p in h.programs if os.path.realpath(p) != own})
    profiled = [p for p in ran if p in facts.programs and facts.programs[p].can_profile]
    if profiled:
        return [
            Diagnosis(
                "exited_without_profile",
                "error",
                f"{', '.join(profiled[:4])} ran but wrote no profile (it ended through _exit(), crashed or was killed)",
                "end the program by returning from main() or calling exit(); or record it directly: "
                f"gmonlens record -- {profiled[0]} ...",
            )
        ]
    shown = ", ".join(os.path.basename(p) for p in ran[:6]) + (" ..." if len(ran) > 6 else "")
    if pre is not None:
        what = f"{pre.binary} makes no profiling calls ({_calls_named()}): it was compiled and linked without -pg"
    else:
        what = f"{facts.command.path} is a {'script' if facts.command.kind == 'script' else 'command'} that made no profile"
    runs = f", and none of the {len(ran)} programs it ran was built with -pg ({shown})" if ran else ""
    return [Diagnosis("no_profiling_calls", "error", what + runs, _PG_FIX)]


def _overflow(facts: Facts) -> list[Diagnosis]:
    seen = [line for run in facts.runs for kind, line in run.messages if kind == "arcs_overflow"]
    if not seen:
        return []
    sized = [h.arcs[1] for h in facts.processes.values() if h.arcs and h.arcs[1]]
    limit = (
        max(sized)
        if sized
        else facts.arcs_requested or (facts.preflight.arcs.default_limit if facts.preflight else None)
    )
    size = f"its {limit} entries hold ({limit - 1} arcs)" if limit else "it held"
    bigger = max(4 * (limit or 0), 1 << 16)
    honoured = (
        " (the helper library enlarges it in dynamically linked programs; GLIBC_TUNABLES "
        "glibc.gmon.minarcs/maxarcs, set too, are read from glibc 2.38 on)"
    )
    return [
        Diagnosis(
            "arcs_overflow",
            "error",
            f'glibc\'s call-graph buffer overflowed ("{seen[0]}"): the program made more distinct calls (call '
            f"site, callee) than {size}, and glibc wrote no profile",
            f"record again with a larger buffer: {_rerun(facts, f'--arcs {bigger}')}{honoured}",
            (f"--arcs={bigger}",),
        )
    ]


def _rates(facts: Facts) -> list[Diagnosis]:
    zero = [p for p in facts.profiles if p.rate_zero]
    if not zero:
        return []
    return [
        Diagnosis(
            "rate_zero",
            "error",
            f"{zero[0].path}: its histogram's sampling rate is 0, so no time can be computed from its "
            f"samples{' (and ' + str(len(zero) - 1) + ' more files)' if len(zero) > 1 else ''}",
            "record it again: a C library writes the profiling clock's rate there; a rate of 0 comes from "
            "a damaged or hand-made file",
        )
    ]


def _cpu(facts: Facts) -> float:
    return sum(r.cpu_seconds for r in facts.runs)


def _profiled_cpu(facts: Facts, binaries: Sequence[BinarySummary]) -> tuple[float, float, str]:
    """The CPU time to hold the samples against, and whose it is: the processes that wrote these
    profiles when the helper's log has each one's (at exit(): its own, not its children's), else
    the whole command's (`wait4`: every process it started)."""
    pids = {pid for b in binaries for pid in b.pids}
    own = [facts.processes[p] for p in pids if p in facts.processes]
    if pids and len(own) == len(pids) and all(h.cpu_seconds is not None for h in own):
        cpu = sum(h.cpu_seconds or 0.0 for h in own)
        return cpu, sum(h.system_seconds or 0.0 for h in own), "the profiled processes"
    return _cpu(facts), sum(r.system_seconds for r in facts.runs), "the command"


def _timing(facts: Facts) -> list[Diagnosis]:
    """no_profiling_timer, few_samples and time_outside_program, from the samples of every
    binary against the CPU time measured."""
    usable = [b for b in facts.binaries if b.problem is None and b.has_histogram and b.hz > 0]
    if not usable:
        return []
    samples = sum(b.samples for b in usable)
    seconds = sum(b.samples / b.hz for b in usable)  # hz > 0 for these
    cpu, system, whose = _profiled_cpu(facts, usable)
    if samples <= 0 and cpu * usable[0].hz >= NO_TIMER_SAMPLES:
        return [_no_timer(facts, cpu, whose)]
    out = []
    if samples < FEW_SAMPLES:
        error = relative_error(max((r.samples for b in usable for r in b.top), default=0.0))
        about = f" (±{error:.0f}% for the hottest routine)" if error is not None else ""
        out.append(
            Diagnosis(
                "few_samples",
                "warning",
                f"only {samples:.0f} samples ({seconds:.2f} s at {usable[0].hz} Hz): a figure of n samples is "
                f"uncertain by about sqrt(n){about}",
                f"run it longer, or let gmonlens sum several runs: {_rerun(facts, '--precision 5%')}",
                ("--precision=5%",),
            )
        )
    if cpu * usable[0].hz >= NO_TIMER_SAMPLES and samples > 0 and seconds < (1 - OUTSIDE_SHARE) * cpu:
        out.append(_outside(facts, seconds, (cpu, system), whose))
    return out


def _no_timer(facts: Facts, cpu: float, whose: str) -> Diagnosis:
    if facts.clock_ticks is False or facts.wsl1:
        why = "this system's profiling clock does not tick (gmonlens checked it"
        why += "; this is WSL1, which has none)" if facts.wsl1 else ")"
    elif facts.clock_ticks:
        why = (
            "the profiling clock ticks on this system (gmonlens checked it), so the program stopped it "
            "(setitimer(ITIMER_PROF), a SIGPROF handler of its own) or spent all its time outside its "
            "own code (shared libraries, the kernel)"
        )
    else:
        why = "the profiling clock (ITIMER_PROF, SIGPROF) did not tick, or all the time went outside the program's code"
    return Diagnosis(
        "no_profiling_timer",
        "error",
        f"{whose} used {cpu:.2f} s of CPU time but the profile holds not one sample: {why}",
        "on WSL1 use WSL2 or a Linux machine; otherwise check that the program does not take SIGPROF or "
        "ITIMER_PROF for itself, and that its work runs in its own code, not only in shared libraries",
    )


def _outside(facts: Facts, seconds: float, used: tuple[float, float], whose: str) -> Diagnosis:
    """`used`: (CPU seconds, of which system) of `whose` processes."""
    cpu, system = used
    share = 100.0 * (1 - seconds / cpu)
    calls = sum(b.calls for b in facts.binaries if b.problem is None)
    overhead = calls * MCOUNT_SECONDS_PER_CALL
    head = (
        f"the samples cover {seconds:.2f} s of the {cpu:.2f} s of CPU time {whose} used: {share:.0f}% of it "
        "went outside the profiled program's own code, which gprof does not see"
    )
    if overhead >= 0.5 * (cpu - seconds - system):
        return Diagnosis(
            "time_outside_program",
            "warning",
            f"{head}: much of it is -pg's own cost: glibc's mcount runs at each of the {calls:,} calls counted "
            f"(at least about {overhead:.2f} s, at {MCOUNT_SECONDS_PER_CALL * 1e9:.0f} ns a call); the rest in shared "
            f"libraries or the kernel ({system:.2f} s of system time)",
            "the routines' self times are still right, but the percentages leave out the profiler's cost; to "
            "lower it, let the compiler inline small hot helpers (static inline, -O2) so that fewer calls are "
            "counted",
        )
    return Diagnosis(
        "time_outside_program",
        "warning",
        f"{head}: in shared libraries (libc, libm, and glibc's mcount, which -pg calls at every routine's "
        f"entry), in the kernel ({system:.2f} s of system time), or in programs without -pg",
        "gprof samples only the executable's own code: link the libraries that matter statically and built "
        "with -pg, or profile them with a sampler such as perf where it is allowed",
    )


def _unknown(facts: Facts) -> list[Diagnosis]:
    lost = [p for p in facts.profiles if p.binary is None]
    if not lost:
        return []
    names = ", ".join(f"{os.path.basename(p.path)}" for p in lost[:4]) + (" ..." if len(lost) > 4 else "")
    return [
        Diagnosis(
            "unknown_binary",
            "warning",
            f"{len(lost)} profile{'s were' if len(lost) > 1 else ' was'} written by a program gmonlens could not "
            f"name ({names}): {lost[0].problem}",
            "name the program: gmonlens record --binary PATH -- ... (a statically linked program run by the "
            "command is invisible to gmonlens's helper library)",
        )
    ]


def _sums(facts: Facts) -> list[Diagnosis]:
    return [
        Diagnosis(
            "profiles_not_summed",
            "error",
            f"{b.binary}: its {len(b.profiles)} profiles could not be read together: {b.problem}",
            "record again into an empty --out directory",
        )
        for b in facts.binaries
        if b.problem is not None
    ]


def _helper_refused(facts: Facts) -> list[Diagnosis]:
    lines = [line for run in facts.runs for kind, line in run.messages if kind == "preload_refused"]
    if not lines:
        return []
    return [
        Diagnosis(
            "helper_not_loaded",
            "note",
            f'the dynamic loader refused gmonlens\'s helper library in some processes ("{lines[0]}"): the '
            "programs they ran are named from COMMAND and --binary only, and --on-signal=exit does not reach them",
            "for a program of another word size (a 32-bit one under a 64-bit cc), name it with --binary; or set CC "
            "to a compiler for it",
        )
    ]


def diagnose(facts: Facts) -> tuple[Diagnosis, ...]:
    """Every finding, most important first (module docstring)."""
    found: list[Diagnosis] = []
    for rule in (_build, _signals, _overflow, _exits, _rates, _sums, _timing, _unknown, _helper_refused):
        found += rule(facts)
    order = {"error": 0, "warning": 1, "note": 2}
    return tuple(sorted(found, key=lambda d: order[d.severity]))


def is_wsl1(version: str) -> bool:
    """Whether /proc/sys/kernel/osrelease's text is WSL1's ("...-Microsoft"; WSL2's says
    "microsoft-standard")."""
    return "Microsoft" in version and "microsoft-standard" not in version.lower()


def any_usable(profiles: Sequence[ProcessProfile], binaries: Sequence[BinarySummary]) -> bool:
    """Whether the recording made a profile worth reading: a binary's profiles summed, with samples
    at a rate above 0, or counted calls."""
    rates_ok = {p.binary for p in profiles if not p.rate_zero}
    return any(
        b.problem is None and ((b.samples > 0 and b.hz > 0 and b.binary in rates_ok) or b.calls > 0)
        for b in binaries
    )
