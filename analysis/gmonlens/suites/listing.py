"""Asking a test runner which tests it has (an I/O module: it starts a process).

`capture(argv, cwd, env, scratch)` runs one listing command (`ctest --show-only=json-v1`,
`BINARY --gtest_list_tests`, `BINARY --list-test-names-only`, `meson introspect --tests`) and
returns what it printed; it runs in a process group of its own, killed once it has ended (nothing
it started is left running). Only `gmonlens test` calls it, for the runner the user named on its
command line. The command runs with `GMON_OUT_PREFIX` pointing into `scratch` (a profiled test
binary writes a profile even when it only lists its tests: it must not land in the user's
folder, over their own gmon.out), its standard input closed, for at most LIST_TIMEOUT seconds;
its output is capped at MAX_OUTPUT bytes (more is an error: a listing is small).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gmonlens.common.errors import GmonlensError

LIST_TIMEOUT = 120.0  # seconds
MAX_OUTPUT = 32 << 20


@dataclass(frozen=True)
class Captured:
    """A listing command's end and output."""

    status: int  # as a shell reports it (128 + N for signal N)
    stdout: bytes
    stderr: bytes

    def first_error_line(self) -> str:
        """The first line of standard error (or output) worth quoting, for a message."""
        for stream in (self.stderr, self.stdout):
            for line in stream.decode("utf-8", "replace").splitlines():
                if line.strip():
                    return " ".join(line.split())[:200]
        return f"exit status {self.status}"


def _read(proc: subprocess.Popen[bytes], deadline: float) -> tuple[bytes, bytes, str | None]:
    """Both streams until they close (or stay quiet for 2 s after the command ended); stdout capped
    (MAX_OUTPUT + 1), stderr's last 64 KiB; the problem that made it stop early (too long, too much)."""
    assert proc.stdout is not None and proc.stderr is not None
    out, err = bytearray(), bytearray()
    streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    with selectors.DefaultSelector() as sel:
        for fd in streams:
            sel.register(fd, selectors.EVENT_READ)
        quiet = 0
        while streams:
            left = deadline - time.monotonic()
            if left <= 0:
                return bytes(out), bytes(err), f"listing its tests took more than {LIST_TIMEOUT:.0f} s"
            ready = sel.select(min(left, 1.0))
            quiet = quiet + 1 if not ready and proc.poll() is not None else 0
            if quiet >= 2:  # it ended; a process it left behind holds the pipes open
                break
            for key, _ in ready:
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    sel.unregister(key.fd)
                    del streams[key.fd]
                    continue
                buf = streams[key.fd]
                buf += chunk
                if buf is err and len(err) > 65536:
                    del err[:-65536]
                if buf is out and len(out) > MAX_OUTPUT:
                    return bytes(out), bytes(err), f"its list of tests is larger than {MAX_OUTPUT >> 20} MiB"
    return bytes(out), bytes(err), None


def capture(argv: Sequence[str], cwd: str, env: Mapping[str, str], scratch: str) -> Captured:
    """Run `argv` and return its output (module docstring); GmonlensError naming argv[0] when it
    cannot be run, runs too long or prints too much."""
    run_env = dict(env)
    run_env["GMON_OUT_PREFIX"] = os.path.join(scratch, "gmon.out")
    try:
        proc = subprocess.Popen(
            list(argv), cwd=cwd, env=run_env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
    except OSError as e:
        raise GmonlensError(argv[0], f"cannot run it to list its tests: {e.strerror or e}") from None
    with proc:
        try:
            out, err, problem = _read(proc, time.monotonic() + LIST_TIMEOUT)
        finally:  # the listing and anything it left running in its group
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            code = proc.wait()
    if problem is not None:
        raise GmonlensError(argv[0], problem)
    return Captured(code if code >= 0 else 128 - code, out, err)
