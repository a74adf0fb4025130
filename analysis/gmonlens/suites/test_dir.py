"""The output folder of `gmonlens test` (`--out DIR`, default `gmonlens-test`):

    DIR/index.json              the index (`index_json.py`; the `--json` document)
    DIR/<test>/gmon.out.<pid>   every profile a process of that test wrote (GMON_OUT_PREFIX)
    DIR/<test>/output.txt       the test's standard output and error
    DIR/<test>/.processes       the helper library's process log of that test

DIR is checked and opened as `gmonlens record`'s is (`runs.outdir.open_record_dir`: not a
symbolic link, the user's own, not writable by others, created 0700). A test's folder name is
its name made safe (letters, digits and `._+-`; anything else `_`; at most MAX_NAME characters;
never hidden), unique in DIR even where case is folded (`-2`, `-3`... appended). Everything is
created through DIR's descriptor with O_NOFOLLOW (and O_EXCL for new files): nothing is written
through a link. A new run replaces the previous one: the files the previous index lists in the
folders it lists (profiles, outputs, logs: names of those forms only, regular files only) are
deleted, and the folders when that leaves them empty; anything else is left alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
from collections.abc import Iterator

from gmonlens.common.errors import GmonlensError
from gmonlens.runs.outdir import PROFILE_NAME, RecordDir, open_record_dir

INDEX = "index.json"
OUTPUT = "output.txt"
PROCESS_LOG = ".processes"
SCRATCH = ".listing"
MAX_NAME = 100
MAX_INDEX_BYTES = 64 << 20
MAX_OUTPUT_READ = 16 << 20  # of a test's output, read back for its verdict
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_SAFE = re.compile(r"[^A-Za-z0-9._+-]")
_FOLDER = re.compile(r"[A-Za-z0-9_+][A-Za-z0-9._+-]{0,120}")
_OURS = (OUTPUT, PROCESS_LOG, "gtest-list.json")


def folder_name(test: str) -> str:
    """`test` as a safe folder name (module docstring), before uniqueness."""
    name = _SAFE.sub("_", test).lstrip(".-")[:MAX_NAME]
    return name or "test"


class SuiteDir:
    """DIR, open (module docstring); a context manager."""

    def __init__(self, d: RecordDir) -> None:
        self.d = d
        self.path = d.path
        self._taken: set[str] = set()

    def __enter__(self) -> SuiteDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.d.close()

    @contextlib.contextmanager
    def _sub(self, name: str) -> Iterator[int]:
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | _NOFOLLOW, dir_fd=self.d.fd)
        try:
            yield fd
        finally:
            os.close(fd)

    def previous_folders(self) -> list[str]:
        """The test folders the previous index lists (safe single names only)."""
        try:
            data = self.read(None, INDEX, MAX_INDEX_BYTES)
            doc = json.loads(data)
        except (OSError, ValueError, RecursionError, GmonlensError):
            return []
        tests = doc.get("tests") if isinstance(doc, dict) else None
        names = [t.get("directory") for t in tests if isinstance(t, dict)] if isinstance(tests, list) else []
        return [n for n in names if isinstance(n, str) and _FOLDER.fullmatch(n)]

    def clear_previous(self) -> int:
        """Delete the previous run's files (module docstring); how many folders were emptied."""
        emptied = 0
        for name in self.previous_folders():
            try:
                with self._sub(name) as fd:
                    for entry in os.listdir(fd):
                        if PROFILE_NAME.fullmatch(entry) or entry in _OURS:
                            st = os.stat(entry, dir_fd=fd, follow_symlinks=False)
                            if stat.S_ISREG(st.st_mode):
                                os.unlink(entry, dir_fd=fd)
                os.rmdir(name, dir_fd=self.d.fd)
                emptied += 1
            except OSError:
                continue
        return emptied

    def make_folder(self, test: str) -> str:
        """A new folder for `test` (its name made safe and unique); its name in DIR."""
        base = folder_name(test)
        for k in range(1, 100_000):
            name = base if k == 1 else f"{base[: MAX_NAME - 7]}-{k}"
            if name.casefold() in self._taken:
                continue
            try:
                os.mkdir(name, 0o700, dir_fd=self.d.fd)
            except FileExistsError:
                self._taken.add(name.casefold())
                continue
            except OSError as e:
                raise GmonlensError(
                    os.path.join(self.path, name), f"cannot create the test's folder: {e.strerror}"
                ) from None
            self._taken.add(name.casefold())
            return name
        raise GmonlensError(self.path, f"no free folder name for test {test!r}")

    def scratch(self) -> str:
        """DIR/.listing (created when missing): where listing commands' profiles land."""
        with contextlib.suppress(FileExistsError):
            os.mkdir(SCRATCH, 0o700, dir_fd=self.d.fd)
        with self._sub(SCRATCH):
            pass  # a directory, not a link
        return os.path.join(self.path, SCRATCH)

    def clear_scratch(self) -> None:
        """Remove what listing commands left in DIR/.listing, and the folder."""
        with contextlib.suppress(OSError), self._sub(SCRATCH) as fd:
            for entry in os.listdir(fd):
                if entry.startswith("gmon.out") or entry == "gtest-list.json":
                    with contextlib.suppress(OSError):
                        os.unlink(entry, dir_fd=fd)
        with contextlib.suppress(OSError):
            os.rmdir(SCRATCH, dir_fd=self.d.fd)

    def create(self, folder: str, name: str) -> int:
        """A new, empty file `folder/name` (0600), open for writing; its descriptor."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | _NOFOLLOW
        with self._sub(folder) as fd:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=fd)
            return os.open(name, flags, 0o600, dir_fd=fd)

    def profiles(self, folder: str) -> list[tuple[str, int]]:
        """(absolute path, pid) of the profiles in `folder`, by pid (regular files only)."""
        found = []
        with contextlib.suppress(OSError), self._sub(folder) as fd:
            for entry in os.listdir(fd):
                if PROFILE_NAME.fullmatch(entry):
                    st = os.stat(entry, dir_fd=fd, follow_symlinks=False)
                    if stat.S_ISREG(st.st_mode):
                        found.append((os.path.join(self.path, folder, entry), int(entry.rsplit(".", 1)[1])))
        return sorted(found, key=lambda f: f[1])

    def read(self, folder: str | None, name: str, cap: int) -> bytes:
        """At most `cap` bytes of `folder/name` (a regular file; GmonlensError otherwise)."""
        with contextlib.ExitStack() as stack:
            at = self.d.fd if folder is None else stack.enter_context(self._sub(folder))
            fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | _NOFOLLOW, dir_fd=at)
            stack.callback(os.close, fd)
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise GmonlensError(name, "is not a regular file")
            chunks, total = [], 0
            while total < cap:
                chunk = os.read(fd, min(1 << 20, cap - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
            return b"".join(chunks)
        raise AssertionError("unreachable")

    def write_index(self, data: bytes) -> None:
        """DIR/index.json replaced whole (written beside it, then renamed over it)."""
        temp = f".{INDEX}.{os.getpid()}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | _NOFOLLOW
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=self.d.fd)
        try:
            fd = os.open(temp, flags, 0o600, dir_fd=self.d.fd)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
            os.replace(temp, INDEX, src_dir_fd=self.d.fd, dst_dir_fd=self.d.fd)
        except OSError as e:
            raise GmonlensError(os.path.join(self.path, INDEX), f"cannot write: {e.strerror}") from None


def open_suite_dir(path: str, cwd: str) -> SuiteDir:
    """DIR checked (or created) and opened; GmonlensError naming it."""
    return SuiteDir(open_record_dir(path, cwd))
