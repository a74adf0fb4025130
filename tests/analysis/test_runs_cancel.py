"""`record` as a server calls it: standard input not the caller's, each run announced, and a
cancel event that stops the command's whole process group (SIGTERM, then SIGKILL) and starts no
further run. No compiler: the command is /bin/sh, the helper library is not built."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

from gmonlens.runs.recording import RecordOptions, record
from processes import alive, wait_ended


def test_cancel_stops_the_process_group_and_the_runs(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    group = tmp_path / "pgid"
    script = f"cut -d' ' -f5 /proc/$$/stat > {group}; sleep 60 & echo $! > {pids}; echo $$ >> {pids}; wait"
    cancel = threading.Event()
    runs: list[tuple[int, int]] = []

    def cancel_once_started() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (not pids.exists() or len(pids.read_text().split()) < 2):
            time.sleep(0.02)
        cancel.set()

    threading.Thread(target=cancel_once_started, daemon=True).start()
    started: list[int] = []
    options = RecordOptions(
        runs=5,
        preload=False,
        forward_signals=False,
        cancel=cancel,
        on_run=lambda r, m: runs.append((r, m)),
        on_start=started.append,
    )
    rec = record(["/bin/sh", "-c", script], str(tmp_path), "out", options)
    assert runs == [(1, 5)] and len(rec.runs) == 1  # no run after the cancellation
    assert rec.runs[0].signal == signal.SIGTERM and started == [rec.runs[0].pid]
    assert int(group.read_text()) == rec.runs[0].pid  # the command led a process group of its own
    assert "killed_by_signal" in [d.code for d in rec.diagnosis]
    for pid in map(int, pids.read_text().split()):
        wait_ended(pid)
        assert not alive(pid), f"process {pid} of the cancelled command still runs"


def test_a_cancel_before_the_first_run_runs_nothing(tmp_path: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    marker = tmp_path / "ran"
    options = RecordOptions(preload=False, forward_signals=False, cancel=cancel)
    rec = record(["/bin/sh", "-c", f"touch {marker}"], str(tmp_path), "out", options)
    assert rec.runs == () and not marker.exists()


def test_standard_input_is_the_one_given(tmp_path: Path) -> None:
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        options = RecordOptions(preload=False, forward_signals=False, stdin=null)
        rec = record(["/bin/sh", "-c", "cat > got; echo ok >> got"], str(tmp_path), "out", options)
    finally:
        os.close(null)
    assert rec.runs[0].exit_code == 0 and (tmp_path / "got").read_text() == "ok\n"


def test_a_diagnosis_fixed_by_recording_again_says_how() -> None:
    from gmonlens.runs.command import ResolvedCommand
    from gmonlens.runs.diagnose import Facts, diagnose
    from gmonlens.runs.launch import RunOutcome

    run = RunOutcome(11, None, signal.SIGTERM, 0.1, 0.0, 0.2)
    facts = Facts(ResolvedCommand(("./p",), "/x/p", "elf"), None, (run,), (), (), {}, {}, False, None, True)
    killed = next(d for d in diagnose(facts) if d.code == "killed_by_signal")
    assert killed.rerun == ("--on-signal=exit",) and "--on-signal=exit" in killed.fix
    from dataclasses import replace

    again = next(d for d in diagnose(replace(facts, on_signal_exit=True)) if d.code == "killed_by_signal")
    assert again.rerun == ()  # --on-signal=exit was on: recording again the same way fixes nothing
