"""`gmonlens serve` sets its process up before serving: GC thresholds, the GIL's switch interval
(requests beside a CPU-bound background step), the C allocator's policy."""

from __future__ import annotations

import gc
import sys
from typing import Any

import pytest

from gmonlens.common import mallocpolicy
from gmonlens_ide import isolation
from gmonlens_lsp import factory, serve
from processes import alive, wait_ended


def test_serve_sets_up_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    served: list[bool] = []
    applied: list[bool] = []

    class Stub:
        def start_io(self) -> None:
            served.append(True)

    monkeypatch.setattr(factory, "create_server", lambda: Stub())
    monkeypatch.setattr(isolation, "neutral_process", lambda: None)

    def apply() -> bool:
        applied.append(True)
        return True

    monkeypatch.setattr(mallocpolicy, "apply", apply)
    before: tuple[Any, ...] = (sys.getswitchinterval(), gc.get_threshold())
    try:
        assert serve.main([]) == 0
        assert served == [True] and applied == [True]
        assert sys.getswitchinterval() == pytest.approx(serve.SWITCH_INTERVAL)
        assert serve.SWITCH_INTERVAL < 0.005  # under CPython's default (see serve.py)
        assert gc.get_threshold()[0] == 20_000
    finally:
        sys.setswitchinterval(before[0])
        gc.set_threshold(*before[1])


HARNESS = """
import asyncio, sys
from gmonlens_ide import isolation, warmup
from gmonlens_lsp import reload
from gmonlens_lsp.features import lifecycle
from gmonlens_lsp.factory import create_server

isolation.python_command = lambda module, args: ["sleep", "300"]  # a warm-up that takes its time
warmup.memory_limit = lambda binary: 0
lifecycle.reload_all = lambda ls: ls.spawn(reload._warm(ls, ["app", "gmon.out"]))
create_server().start_io()
"""


def _message(body: dict[str, Any]) -> bytes:
    import json

    data = json.dumps(body).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(data), data)


def _children(pid: int) -> list[int]:
    import glob

    out: list[int] = []
    for f in glob.glob(f"/proc/{pid}/task/*/children"):
        with open(f) as fh:
            out += [int(x) for x in fh.read().split()]
    return out


@pytest.mark.timeout(300)
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_a_signal_ends_the_server_and_its_warm_up(sig: str) -> None:
    """Issue 33 (10): SIGTERM or SIGHUP to the server left the cache warm-up running as an orphan
    (1.4-2.1 s of CPU at 25,000 routines); `exit` and a closed stdin already ended it."""
    import os
    import signal
    import subprocess
    import time

    proc = subprocess.Popen([sys.executable, "-c", HARNESS], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None
    proc.stdin.write(
        _message({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    )
    proc.stdin.write(_message({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    proc.stdin.flush()
    while not (kids := _children(proc.pid)):  # the warm-up has started
        assert proc.poll() is None, "the server ended before its warm-up started"
        time.sleep(0.02)
    os.kill(proc.pid, getattr(signal, sig))
    assert proc.wait() == 128 + getattr(signal, sig)
    for kid in kids:
        wait_ended(kid)  # killed with the server: gone, or a zombie until its new parent reaps it
        assert not alive(kid)


PARENT = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c",
    "import sys, time; from gmonlens_ide import warmup; warmup._end_with(int(sys.argv[1])); "
    "print('ready', flush=True); time.sleep(300)", str(os.getpid())], stdout=subprocess.PIPE)
assert child.stdout.readline() == b"ready\\n"
print(child.pid, flush=True)
time.sleep(300)
"""


@pytest.mark.timeout(300)
def test_the_warm_up_ends_with_a_server_killed_outright() -> None:
    """SIGKILL gives the server no chance to kill its warm-up: the warm-up asks the kernel to end
    it when its parent ends (`warmup --parent`, Linux's parent-death signal)."""
    import os
    import signal
    import subprocess

    server = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE)
    assert server.stdout is not None
    child = int(server.stdout.readline())
    assert alive(child)
    os.kill(server.pid, signal.SIGKILL)
    server.wait()
    wait_ended(child)  # ended by the kernel with its parent (a pytest-timeout if never)
    assert not alive(child)
