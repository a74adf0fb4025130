"""`gmonlens record`'s diagnosis, rule by rule, on the facts of made-up recordings (no compiler):
each code appears when its cause is there and not otherwise."""

from __future__ import annotations

import signal
from dataclasses import replace

import pytest

from gmonlens.runs.arcs import ArcPlan
from gmonlens.runs.collect import ProcessProfile
from gmonlens.runs.command import ResolvedCommand
from gmonlens.runs.diagnose import Diagnosis, Facts, any_usable, build_findings, diagnose, is_wsl1
from gmonlens.runs.launch import RunOutcome
from gmonlens.runs.preflight import Preflight, Unit
from gmonlens.runs.processes import ProcessHistory
from gmonlens.runs.summary import BinarySummary, TopRoutine

PROG = "/w/prog"
PLAN = ArcPlan(1684, 10, 2, None)


def pre(**kw: object) -> Preflight:
    base = Preflight(PROG, "EM_X86_64", 8, ("mcount",), True, False, 3, (), 0, None, None, PLAN)
    return replace(base, **kw)  # type: ignore[arg-type]


def run(
    pid: int = 100,
    code: int | None = 0,
    sig: int | None = None,
    user: float = 1.0,
    system: float = 0.0,
    **kw: object,
) -> RunOutcome:
    return RunOutcome(pid, code, sig, user, system, user + system, **kw)  # type: ignore[arg-type]


def profile(
    pid: int = 100, samples: int = 1000, rate_zero: bool = False, binary: str | None = PROG
) -> ProcessProfile:
    return ProcessProfile(
        f"/d/gmon.out.{pid}", pid, 1, binary, True, "command", samples, 5, 0 if rate_zero else 100, rate_zero
    )


def summary(
    samples: float = 1000.0, hz: int = 100, calls: int = 10, top_samples: float = 600.0
) -> BinarySummary:
    top = (
        TopRoutine(
            "hot",
            top_samples / hz if hz else 0.0,
            60.0,
            top_samples,
            100 / top_samples**0.5 if top_samples else None,
            5,
            None,
            0,
        ),
    )
    return BinarySummary(PROG, ("/d/gmon.out.100",), (100,), samples, hz, True, calls, top)


def facts(**kw: object) -> Facts:
    base = Facts(
        command=ResolvedCommand((PROG,), PROG, "elf"),
        preflight=pre(),
        runs=(run(),),
        profiles=(profile(),),
        binaries=(summary(),),
        processes={},
        programs={},
        on_signal_exit=False,
        arcs_requested=None,
        helper=True,
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def codes(found: tuple[Diagnosis, ...] | list[Diagnosis]) -> list[str]:
    return [d.code for d in found]


def test_a_good_recording_has_nothing_to_say() -> None:
    assert codes(diagnose(facts())) == []


def test_compiled_without_pg_but_linked_with_it_is_a_warning_before_and_after() -> None:
    p = pre(profiling_calls=())
    assert codes(build_findings(p, before_run=True)) == ["no_profiling_calls"]
    found = diagnose(facts(preflight=p))
    assert codes(found) == ["no_profiling_calls"] and found[0].severity == "warning"
    assert "compiled without" in found[0].message and "-pg" in found[0].fix


def test_a_program_without_pg_is_noted_before_and_an_error_after_when_nothing_came() -> None:
    p = pre(profiling_calls=(), startup_linked=False)
    before = build_findings(p, before_run=True)
    assert codes(before) == ["no_profiling_calls"] and before[0].severity == "note"
    found = diagnose(facts(preflight=p, profiles=(), binaries=()))
    assert codes(found) == ["no_profiling_calls"] and found[0].severity == "error"
    assert "compiled and linked without -pg" in found[0].message
    # a launcher (make, a shell) whose child wrote a profile: nothing to say about the launcher
    assert "no_profiling_calls" not in codes(diagnose(facts(preflight=p)))


def test_compiled_with_pg_linked_without() -> None:
    found = diagnose(facts(preflight=pre(startup_linked=False), profiles=(), binaries=()))
    assert codes(found)[0] == "not_linked_with_pg"
    assert "exited_without_profile" not in codes(found)  # the cause is said once


def test_units_without_pg_are_named() -> None:
    units = tuple(Unit(n, "/src", "GNU C17 12.2.0 -g") for n in ("b.c", "sub/c.c"))
    found = diagnose(facts(preflight=pre(units=40, units_without_pg=units)))
    assert codes(found) == ["units_without_pg"]
    assert found[0].message.startswith("2 of 40 units were compiled without -pg: b.c, c.c:")


def test_killed_by_sigterm_suggests_on_signal_exit() -> None:
    found = diagnose(facts(runs=(run(code=None, sig=signal.SIGTERM),), profiles=(), binaries=()))
    assert codes(found) == ["killed_by_signal"]
    assert "SIGTERM" in found[0].message and "--on-signal=exit" in found[0].fix


def test_killed_by_sigkill_says_it_cannot_be_caught() -> None:
    found = diagnose(facts(runs=(run(code=None, sig=signal.SIGKILL),), profiles=(), binaries=()))
    assert codes(found) == ["killed_by_signal"] and "cannot be caught" in found[0].fix


def test_a_signal_turned_into_exit_is_a_note() -> None:
    history = {100: ProcessHistory(100, 1, (PROG,), True, signal.SIGTERM, 0.5, None)}
    found = diagnose(facts(runs=(run(code=143),), processes=history, on_signal_exit=True))
    assert codes(found) == ["stopped_by_signal"] and found[0].severity == "note"


def test_exit_without_profile_names_its_reason() -> None:
    no_exit = {100: ProcessHistory(100, 1, (PROG,), False, 0, None, None)}
    found = diagnose(facts(profiles=(), binaries=(), processes=no_exit))
    assert codes(found) == ["exited_without_profile"] and "_exit()" in found[0].message
    crashed = diagnose(facts(runs=(run(code=None, sig=signal.SIGSEGV),), profiles=(), binaries=()))
    assert codes(crashed) == ["exited_without_profile"] and "crashed (SIGSEGV)" in crashed[0].message
    execd = {100: ProcessHistory(100, 1, (PROG, "/bin/true"), True, 0, 0.0, None)}
    found = diagnose(facts(profiles=(), binaries=(), processes=execd))
    assert "it ran /bin/true (exec)" in found[0].message


def test_a_child_profile_does_not_hide_the_main_process_missing_one() -> None:
    child = profile(pid=101)
    found = diagnose(facts(profiles=(child,)))
    assert codes(found) == ["exited_without_profile"] and "pid 100" in found[0].message


def test_overflow_gives_the_message_seen_and_a_bigger_buffer() -> None:
    line = "mcount: call graph buffer size limit exceeded, gmon.out will not be generated"
    found = diagnose(facts(runs=(run(messages=(("arcs_overflow", line),)),), profiles=(), binaries=()))
    assert codes(found) == ["arcs_overflow"]
    assert line in found[0].message and "1684 entries hold (1683 arcs)" in found[0].message
    assert "--arcs 65536" in found[0].fix


def test_rate_zero() -> None:
    found = diagnose(facts(profiles=(profile(rate_zero=True),)))
    assert "rate_zero" in codes(found)
    assert not any_usable((profile(rate_zero=True),), (summary(calls=0),))
    assert any_usable((profile(rate_zero=True),), (summary(calls=3),))  # its call counts still are


def test_no_profiling_timer_only_when_cpu_time_was_spent() -> None:
    silent = summary(samples=0.0, top_samples=0.0)
    found = diagnose(facts(binaries=(silent,), runs=(run(user=2.0),)))
    assert codes(found) == ["no_profiling_timer"]
    assert "WSL1" in diagnose(facts(binaries=(silent,), runs=(run(user=2.0),), wsl1=True))[0].message
    assert codes(diagnose(facts(binaries=(silent,), runs=(run(user=0.01),)))) == ["few_samples"]
    here = diagnose(facts(binaries=(silent,), runs=(run(user=2.0),), clock_ticks=True))[0].message
    assert "ticks on this system" in here and "stopped it" in here
    broken = diagnose(facts(binaries=(silent,), runs=(run(user=2.0),), clock_ticks=False))[0].message
    assert "does not tick" in broken


def test_few_samples_gives_the_error_of_the_hottest_routine() -> None:
    found = diagnose(facts(binaries=(summary(samples=9.0, top_samples=4.0),), runs=(run(user=0.09),)))
    assert codes(found) == ["few_samples"]
    assert "only 9 samples" in found[0].message and "±50%" in found[0].message
    assert "--precision" in found[0].fix


def test_time_outside_the_program_gives_the_share() -> None:
    found = diagnose(facts(binaries=(summary(samples=200.0),), runs=(run(user=8.0, system=2.0),)))
    assert codes(found) == ["time_outside_program"]
    assert "80%" in found[0].message and "2.00 s of system time" in found[0].message
    assert codes(diagnose(facts(binaries=(summary(samples=900.0),), runs=(run(user=10.0),)))) == []
    # 2 s sampled of 10 s, 1.5e9 calls counted: about 6 s of mcount
    mcount = diagnose(facts(binaries=(summary(samples=200.0, calls=1_500_000_000),), runs=(run(user=10.0),)))[
        0
    ]
    assert (
        "mcount runs at each of the 1,500,000,000 calls counted (at least about 6.00 s" in mcount.message
        and "inline" in mcount.fix
    )


def test_unknown_binary() -> None:
    lost = replace(profile(pid=7), binary=None, problem="binary not found: no executable known fits it")
    found = diagnose(facts(profiles=(profile(), lost)))
    assert (
        codes(found) == ["unknown_binary"] and "gmon.out.7" in found[0].message and "--binary" in found[0].fix
    )


def test_errors_come_first() -> None:
    found = diagnose(facts(preflight=pre(units_without_pg=(Unit("b.c", "", "GNU C -g"),)), profiles=(), binaries=(),
                           runs=(run(code=None, sig=signal.SIGTERM),)))  # fmt: skip
    assert [d.severity for d in found] == ["error", "warning"]


@pytest.mark.parametrize(
    ("release", "wsl1"),
    [
        ("4.4.0-19041-Microsoft", True),
        ("5.15.90.1-microsoft-standard-WSL2", False),
        ("6.1.0-13-amd64", False),
    ],
)
def test_wsl1_is_told_by_its_kernel_release(release: str, wsl1: bool) -> None:
    assert is_wsl1(release) is wsl1


def test_the_profiled_processes_cpu_time_is_used_when_the_log_has_it() -> None:
    # the command used 10 s (a compiler, say), the profiled process 2.5 s of which 2 s sampled
    log = {100: ProcessHistory(100, 1, (PROG,), True, 0, 2.5, None, 0.1)}
    assert (
        codes(diagnose(facts(binaries=(summary(samples=200.0),), runs=(run(user=10.0),), processes=log)))
        == []
    )
    log = {100: ProcessHistory(100, 1, (PROG,), True, 0, 5.0, None, 0.5)}
    found = diagnose(facts(binaries=(summary(samples=200.0),), runs=(run(user=10.0),), processes=log))
    assert codes(found) == ["time_outside_program"]
    assert "of the 5.00 s of CPU time the profiled processes used: 60%" in found[0].message
    assert "0.50 s of system time" in found[0].message


def test_a_refused_helper_is_a_note() -> None:
    line = "ERROR: ld.so: object '/c/lib.so' from LD_PRELOAD cannot be preloaded (wrong ELF class: ELFCLASS64): ignored."
    found = diagnose(facts(runs=(run(messages=(("preload_refused", line),)),)))
    assert codes(found) == ["helper_not_loaded"] and found[0].severity == "note" and line in found[0].message


def test_an_unreadable_program_is_said() -> None:
    why = "/w/prog: has no symbols (stripped binary?); gprof needs the symbol table"
    found = diagnose(facts(preflight=None, unreadable=why, profiles=(), binaries=()))
    assert codes(found)[0] == "binary_unreadable" and why in found[0].message and "strip" in found[0].fix
