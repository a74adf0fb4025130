"""Processes a test did not start itself (a command's children, a server's warm-up): waiting for
them to end without a clock. A test that waits for a process that never ends is failed by
pytest-timeout, not by a deadline of its own (wall time on a loaded machine decides nothing)."""

from __future__ import annotations

import os
import select


def alive(pid: int) -> bool:
    """Whether `pid` runs: false once it has ended (a zombie waiting to be reaped has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_ended(pid: int) -> None:
    """Until `pid` has ended: its pidfd turns readable when it exits."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return  # gone already
    try:
        select.select([fd], [], [])
    finally:
        os.close(fd)
