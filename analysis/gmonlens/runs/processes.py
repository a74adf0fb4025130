"""The process log the helper library writes (`preload_source.py`): which program each process
ran, its forks, how it ended (pure: the log's bytes in).

A record is `pid TAB ppid TAB event TAB a TAB b TAB exe NUL`; events: `start` (an image starts:
after every exec), `fork` (a forked child, running its parent's program), `exit` (exit() was
called; a, b: user and system CPU time in microseconds), `signal` (--on-signal=exit turned signal
`a` into exit()), `arcs` (the call-graph buffer: a entries before, b after; b = 0: not enlarged).
Records that do not parse are skipped: the log is a help, never trusted for more than names.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

MAX_RECORDS = 1 << 20


@dataclass(frozen=True, slots=True)
class ProcessEvent:
    pid: int
    ppid: int
    event: str  # start, fork, exit, signal, arcs
    a: int
    b: int
    exe: str  # the process's program (/proc/self/exe) at the event


def parse_log(data: bytes) -> list[ProcessEvent]:
    """The log's records, in the order written (module docstring)."""
    out: list[ProcessEvent] = []
    for raw in data.split(b"\0")[:MAX_RECORDS]:
        parts = raw.split(b"\t", 5)
        if len(parts) != 6:
            continue
        try:
            pid, ppid, a, b = int(parts[0]), int(parts[1]), int(parts[3]), int(parts[4])
        except ValueError:
            continue
        event = parts[2].decode("ascii", "replace")
        out.append(ProcessEvent(pid, ppid, event, a, b, parts[5].decode("utf-8", "surrogateescape")))
    return out


@dataclass(frozen=True)
class ProcessHistory:
    """What the log says about one pid."""

    pid: int
    ppid: int
    programs: tuple[str, ...]  # the programs it ran, in order (a fork's first: its parent's)
    exited: bool  # it called exit()
    signal: int  # the signal --on-signal=exit turned into exit(), 0 if none
    cpu_seconds: float | None  # user + system at exit() (None: no exit record)
    arcs: tuple[int, int] | None  # the call-graph buffer (before, after) when the helper sized it
    system_seconds: float | None = None  # the system part of cpu_seconds


@dataclass
class _Acc:
    ppid: int
    programs: list[str] = field(default_factory=list)
    exited: bool = False
    signal: int = 0
    cpu: float | None = None
    system: float | None = None
    arcs: tuple[int, int] | None = None


def histories(events: Iterable[ProcessEvent]) -> dict[int, ProcessHistory]:
    """Each pid's history (a pid reused within the run: its records are merged)."""
    acc: dict[int, _Acc] = {}
    for e in events:
        h = acc.setdefault(e.pid, _Acc(e.ppid))
        if e.event in ("start", "fork") and e.exe and (not h.programs or h.programs[-1] != e.exe):
            h.programs.append(e.exe)
        elif e.event == "exit":
            h.exited, h.cpu, h.system = True, (e.a + e.b) / 1e6, e.b / 1e6
        elif e.event == "signal":
            h.signal = e.a
        elif e.event == "arcs":
            h.arcs = (e.a, e.b)
    return {
        pid: ProcessHistory(pid, h.ppid, tuple(h.programs), h.exited, h.signal, h.cpu, h.arcs, h.system)
        for pid, h in acc.items()
    }


def descendants(history: Mapping[int, ProcessHistory], root: int) -> set[int]:
    """`root` and every pid the log shows descending from it (through ppid), for summing a test's
    forks and child programs with it (`gmonlens test`). A pid reused in the run may join the
    wrong tree: the log cannot tell two processes of one pid apart."""
    children: dict[int, list[int]] = {}
    for h in history.values():
        if h.ppid != h.pid:
            children.setdefault(h.ppid, []).append(h.pid)
    out, todo = {root}, [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in out:
                out.add(child)
                todo.append(child)
    return out
