"""DIR, where `gmonlens record` has every process write its profile (`GMON_OUT_PREFIX=DIR/gmon.out`:
each process writes `DIR/gmon.out.<pid>`), and its own files: `record.json` (the recording, the
`--json` document) and `.record-processes` (the helper library's process log).

What DIR must be (chosen so that nobody but the user can put a file or a link where a profile
is written or read, and nothing is written through a link):
- its last component is a directory, not a symbolic link: a link named DIR (planted in a cloned
  repository, say, pointing into ~/.config) is refused, and the message names the directory it
  points to so the user can pass that instead. Links in the components above it are followed:
  the user typed that path (and /home itself may be a link);
- owned by the user and not writable by group or others (so `--out /tmp` is refused: another user
  could plant `gmon.out.<pid>` files or links there; glibc opens the profile with O_NOFOLLOW, but
  a planted file would be read back as the program's profile);
- created 0700 (parents as `mkdir -p` does) when it does not exist.
DIR is opened once (O_DIRECTORY|O_NOFOLLOW) and checked on that descriptor; everything gmonlens
writes or deletes there goes through it (`dir_fd`, O_NOFOLLOW|O_EXCL where a file is created).
GMON_OUT_PREFIX is DIR's real path, absolute, so a `chdir` or a read-only working directory
cannot lose a profile.

A recording replaces the previous one in DIR: the profiles the previous `record.json` lists (by
name `gmon.out.<digits>`, regular files only) are deleted before the run; any other profile file
found there is left alone and not read (`snapshot` / `new_profiles`: only files that appear or
change during the run are this recording's).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
from dataclasses import dataclass
from types import TracebackType

from gmonlens.common.errors import GmonlensError

PREFIX = "gmon.out"
MANIFEST = "record.json"
PROCESS_LOG = ".record-processes"
PROFILE_NAME = re.compile(r"gmon\.out\.([0-9]{1,10})")
MAX_LOG_BYTES = 64 << 20  # the process log read back (a record is some hundred bytes)
MAX_MANIFEST_BYTES = 16 << 20
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


@dataclass(frozen=True, slots=True)
class Stamp:
    """A directory entry's identity: a file that keeps it was not written during the run."""

    inode: int
    size: int
    mtime_ns: int


class RecordDir:
    """DIR, checked and open (module docstring). A context manager; `close` lets go of it."""

    def __init__(self, path: str, fd: int, created: bool) -> None:
        self.path = path  # absolute real path
        self.fd = fd
        self.created = created

    @property
    def prefix(self) -> str:
        """GMON_OUT_PREFIX: absolute, under DIR."""
        return os.path.join(self.path, PREFIX)

    def __enter__(self) -> RecordDir:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def snapshot(self) -> dict[str, Stamp]:
        """The profile files now in DIR (regular files named gmon.out.<pid>)."""
        out: dict[str, Stamp] = {}
        for name in os.listdir(self.fd):
            if PROFILE_NAME.fullmatch(name):
                try:
                    st = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode):
                    out[name] = Stamp(st.st_ino, st.st_size, st.st_mtime_ns)
        return out

    def new_profiles(self, before: dict[str, Stamp]) -> list[tuple[str, int]]:
        """(absolute path, pid) of the profile files written since `before` was taken, by pid."""
        now = self.snapshot()
        found = [
            (os.path.join(self.path, n), int(n.rsplit(".", 1)[1]))
            for n, s in now.items()
            if before.get(n) != s
        ]
        return sorted(found, key=lambda f: (f[1], f[0]))

    def previous_profiles(self) -> list[str]:
        """The profile names the previous recording's record.json lists (present or not)."""
        try:
            data = self._read(MANIFEST, MAX_MANIFEST_BYTES)
            doc = json.loads(data)
        except (OSError, ValueError, GmonlensError):
            return []
        names = []
        for p in doc.get("profiles", []) if isinstance(doc, dict) else []:
            path = p.get("path") if isinstance(p, dict) else None
            if isinstance(path, str) and PROFILE_NAME.fullmatch(os.path.basename(path)):
                names.append(os.path.basename(path))
        return names

    def clear_previous(self) -> int:
        """Delete the previous recording's profiles (regular files only); how many were."""
        removed = 0
        for name in self.previous_profiles():
            try:
                st = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
                if stat.S_ISREG(st.st_mode):
                    os.unlink(name, dir_fd=self.fd)
                    removed += 1
            except OSError:
                continue
        return removed

    def new_log(self) -> str:
        """A fresh, empty process log (0600, created here: never a file or link found there);
        its absolute path."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(PROCESS_LOG, dir_fd=self.fd)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | _NOFOLLOW
        os.close(os.open(PROCESS_LOG, flags, 0o600, dir_fd=self.fd))
        return os.path.join(self.path, PROCESS_LOG)

    def read_log(self) -> bytes:
        """The process log's bytes (at most MAX_LOG_BYTES; b"" when it cannot be read)."""
        try:
            return self._read(PROCESS_LOG, MAX_LOG_BYTES)
        except (OSError, GmonlensError):
            return b""

    def write_manifest(self, data: bytes) -> None:
        """Write record.json (replaced whole; a link or non-regular file there is refused)."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC | _NOFOLLOW
        try:
            fd = os.open(MANIFEST, flags, 0o600, dir_fd=self.fd)
        except OSError as e:
            raise GmonlensError(os.path.join(self.path, MANIFEST), f"cannot write: {e.strerror}") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise GmonlensError(os.path.join(self.path, MANIFEST), "is not a regular file: not written")
            os.ftruncate(fd, 0)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)

    def _read(self, name: str, cap: int) -> bytes:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | _NOFOLLOW, dir_fd=self.fd)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise GmonlensError(name, "is not a regular file")
            chunks, total = [], 0
            while total <= cap:
                chunk = os.read(fd, min(1 << 20, cap + 1 - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
            return b"".join(chunks)[:cap]
        finally:
            os.close(fd)


def _refuse(path: str, why: str) -> GmonlensError:
    return GmonlensError(path, f"{why}: not used as the directory for the profiles (--out DIR)")


def _check(path: str, st: os.stat_result) -> None:
    if not stat.S_ISDIR(st.st_mode):
        raise _refuse(path, "is not a directory")
    if st.st_uid != os.geteuid():
        raise _refuse(path, "belongs to another user")
    if st.st_mode & 0o022:
        raise _refuse(path, "is writable by other users (who could plant files or links among the profiles)")


def open_record_dir(path: str, cwd: str) -> RecordDir:
    """DIR checked (or created) and opened (module docstring); raises GmonlensError naming it."""
    full = os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))
    created = False
    if os.path.islink(full):
        target = os.path.realpath(full)
        raise _refuse(full, f"is a symbolic link (to {target}); give that directory itself")
    if not os.path.lexists(full):
        try:
            os.makedirs(full, mode=0o700)
            created = True
        except FileExistsError:
            pass  # made meanwhile: checked below like any other
        except OSError as e:
            raise GmonlensError(full, f"cannot create the directory for the profiles: {e.strerror}") from None
    try:
        fd = os.open(full, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | _NOFOLLOW)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR):
            raise _refuse(full, "is not a directory (or is a symbolic link)") from None
        raise GmonlensError(full, f"cannot open the directory for the profiles: {e.strerror}") from None
    try:
        _check(full, os.fstat(fd))
        if not os.access(full, os.W_OK | os.X_OK):
            raise _refuse(full, "is not writable")
    except BaseException:
        os.close(fd)
        raise
    return RecordDir(os.path.realpath(full), fd, created)
