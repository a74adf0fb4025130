"""`gmonlens_ide.writes`: whether a profile is still being written (issue 33, item 5)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from gmonlens_ide import writes


def test_open_for_writing_is_asked_of_the_kernel(tmp_path: Path) -> None:
    f = tmp_path / "gmon.out"
    f.write_bytes(b"gmon")
    if writes.open_for_writing(str(f)) is None:
        pytest.skip("no leases here")
    assert writes.open_for_writing(str(f)) is False
    fd = os.open(f, os.O_WRONLY)
    try:
        assert writes.open_for_writing(str(f)) is True and writes.busy([str(f)]) == [str(f)]
    finally:
        os.close(fd)
    reader = os.open(f, os.O_RDONLY)  # readers do not count
    try:
        assert writes.open_for_writing(str(f)) is False
    finally:
        os.close(reader)
    os.mkfifo(tmp_path / "fifo")
    assert writes.open_for_writing(str(tmp_path / "fifo")) is None
    assert writes.open_for_writing(str(tmp_path / "missing")) is None


def test_a_writer_opening_during_the_probe_does_not_end_us(tmp_path: Path) -> None:
    """The lease is held for microseconds; a writer opening then breaks it, and the kernel tells
    the holder with a signal: SIGURG (ignored by default), never SIGIO (which would end us)."""
    assert writes._LEASE_SIGNAL == signal.SIGURG
    assert signal.getsignal(signal.SIGURG) in (signal.SIG_DFL, signal.SIG_IGN)


def test_unfinished_sees_a_change_under_the_read(tmp_path: Path) -> None:
    f = tmp_path / "gmon.out"
    f.write_bytes(b"gmon, part")
    seen = {str(f): writes.identity(str(f))}
    assert writes.unfinished(seen) == []
    with open(f, "ab") as fh:
        fh.write(b" and the rest")
    assert writes.unfinished(seen) == [str(f)]
    assert writes.written_since([str(f)], time.time_ns() - 10**9) == [str(f)]
    assert writes.written_since([str(f)], time.time_ns() + 10**9) == []
