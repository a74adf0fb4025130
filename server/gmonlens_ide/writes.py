"""Whether a file is still being written: a profile is shown only when complete.

A program writes gmon.out when it exits: it opens the file (truncating it), writes the histogram
and the arc records, and closes it. Records that are whole say nothing of the end (the file may
stop after any arc), so a profile counts as complete when

- no process has it open for writing: asked of the kernel with a read lease (Linux `F_SETLEASE`
  fails with EAGAIN while any process holds the file open for writing; the lease is released at
  once), where the filesystem grants leases to us (our own files on a local filesystem); and
- the file did not change while it was read: its identity (device, inode, size, mtime, ctime) when
  the load read it (`ProfileFiles.read_as`) equals its identity after the load (the lease is then
  asked on the descriptor the load read through, kept open until then: no file is opened again).

Where leases cannot be had (another owner, NFS), the second check and the watcher's "unchanged for
a moment" are what is left.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import stat
from collections.abc import Iterable

_F_SETSIG = getattr(fcntl, "F_SETSIG", 10)  # Linux
# A lease broken while held (a writer opening the file within the microseconds we hold it) is told
# with this signal, whose default action is to do nothing (SIGIO's would end the process).
_LEASE_SIGNAL = getattr(signal, "SIGURG", 23)


def open_for_writing(path: str) -> bool | None:
    """Whether some process has the regular file `path` open for writing; None when it cannot be
    told (no such file, not a regular file, no lease for us on it)."""
    if not hasattr(fcntl, "F_SETLEASE"):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None
    try:
        return open_for_writing_fd(fd)
    finally:
        os.close(fd)


def open_for_writing_fd(fd: int) -> bool | None:
    """`open_for_writing` of the file open (read-only) on `fd`."""
    if not hasattr(fcntl, "F_SETLEASE"):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        fcntl.fcntl(fd, _F_SETSIG, _LEASE_SIGNAL)
        try:
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
        except BlockingIOError:  # EAGAIN: open for writing somewhere
            return True
        except OSError:  # EACCES (not ours), EINVAL (no leases on this filesystem)
            return None
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
        return False
    except OSError:
        return None


def busy(paths: Iterable[str]) -> list[str]:
    """Those of `paths` that some process has open for writing."""
    return [p for p in paths if open_for_writing(p)]


Identity = tuple[int, int, int, int, int]


def identity(path: str) -> Identity | None:
    """(device, inode, size, mtime ns, ctime ns) of `path`; None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def unfinished(read_as: dict[str, Identity | None], handles: dict[str, int] | None = None) -> list[str]:
    """The files (path -> identity when read) that are open for writing now or are no longer what
    was read: a load of them may hold a torn profile. `handles`: path -> a descriptor still open
    on the file as read (asked instead of opening it again)."""
    out = []
    for p, seen in read_as.items():
        fd = (handles or {}).get(p)
        busy = open_for_writing_fd(fd) if fd is not None else open_for_writing(p)
        if busy or identity(p) != seen:
            out.append(p)
    return out


def written_since(paths: Iterable[str], started_ns: int) -> list[str]:
    """Those of `paths` open for writing, or modified at or after `started_ns` (time.time_ns()) less a
    clock tick: for a load that failed on them, the failure may be a write's middle."""
    out = []
    for p in paths:
        seen = identity(p)
        if open_for_writing(p) or (seen is not None and seen[3] >= started_ns - 20_000_000):
            out.append(p)
    return out
