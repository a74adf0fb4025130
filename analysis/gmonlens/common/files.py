"""Reading the user's files safely: regular files only, never blocking, never unbounded.

Every file the engine (and the server: settings, sources) reads from a workspace goes through here.
Links are followed; what they lead to must be a regular file, so a FIFO (which would block the
reader forever), a directory, a socket or a device such as /dev/zero or /dev/urandom (endless
data) is refused with a one-line error naming *that* file. The file is opened with O_NONBLOCK
(opening a FIFO then returns at once) and checked with fstat on the open descriptor (no window
between check and use). Reads stop at a cap: a size that lies (/proc files report 0) cannot make
us allocate more than the cap.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

from gmonlens.common.errors import GmonlensError

SPARSE_MIN = 64 << 20  # a file read whole larger than this that is mostly holes is refused

_KINDS = (
    (stat.S_ISDIR, "is a directory"),
    (stat.S_ISFIFO, "is a named pipe (FIFO)"),
    (stat.S_ISSOCK, "is a socket"),
    (stat.S_ISCHR, "is a character device"),
    (stat.S_ISBLK, "is a block device"),
)


def _not_regular(mode: int, what: str) -> str:
    for test, text in _KINDS:
        if test(mode):
            return f"{text}, not a regular file ({what} expected)"
    return f"is not a regular file ({what} expected)"


def _os_message(e: OSError) -> str:
    if e.errno == errno.ENOENT:
        return "no such file"
    if e.errno == errno.ENXIO:  # open() of a socket
        return "is a socket or a device without a reader, not a regular file"
    return e.strerror or str(e)


def open_regular(path: str, what: str, error: type[GmonlensError] = GmonlensError) -> BinaryIO:
    """`path` opened for binary reading, after checking it is (links resolved) a regular file.

    Raises `error(path, message)`: one line naming the file.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise error(path, _os_message(e)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error(path, _not_regular(st.st_mode, what))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str, cap: int, what: str, error: type[GmonlensError] = GmonlensError) -> bytes:
    """The bytes of the regular file `path`, at most `cap` of them (more is an error).

    `what` names the expected content in messages ("gmon.out profile", "executable", ...).
    """
    with open_regular(path, what, error) as fh:
        return read_open(fh, path, cap, what, error)


def read_open(
    fh: BinaryIO, path: str, cap: int, what: str, error: type[GmonlensError] = GmonlensError
) -> bytes:
    """`read_regular` of a file `open_regular` opened (left open)."""
    try:
        st = os.fstat(fh.fileno())
        size = st.st_size
        if size > cap:
            raise error(path, f"file of {size} bytes is too large for a {what} (limit {cap} bytes)")
        stored = getattr(st, "st_blocks", 0) * 512
        if size > SPARSE_MIN and 0 < stored < size // 2:  # mostly holes: never read them
            raise error(path, f"sparse file of {size} bytes with {stored} on disk: not read as a {what}")
        chunks: list[bytes] = []
        total, want = 0, size + 1  # the size may lie (/proc): read on, never past the cap
        while total <= cap:
            chunk = fh.read(min(want, cap + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            want = 1 << 20
    except OSError as e:
        raise error(path, _os_message(e)) from None
    if total > cap:
        raise error(path, f"more than {cap} bytes: too large for a {what}")
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def write_file(path: str, data: bytes, what: str) -> None:
    """Write `data` to `path` (created or truncated), never through a symbolic link and only into
    a regular file: a link planted at `path` (a cloned repository's `main.c-ann -> ~/.bashrc`) is
    refused with one line naming it (GmonlensError), as is a FIFO, device or directory.
    `what` names the output in messages ("gmon.sum", "annotated source")."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as e:
        if e.errno == errno.ELOOP or os.path.islink(path):
            raise GmonlensError(path, f"is a symbolic link: {what} is not written through links") from None
        raise GmonlensError(path, f"cannot write: {_os_message(e)}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise GmonlensError(path, f"{_not_regular(st.st_mode, what)}: not written")
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except OSError as e:
        raise GmonlensError(path, f"cannot write: {_os_message(e)}") from None
    finally:
        os.close(fd)
