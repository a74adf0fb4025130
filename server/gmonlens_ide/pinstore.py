"""Pinned baselines on disk: the one thing gmonlens keeps for the user, so it survives what the
disposable cache need not (two processes pinning at once, a kill at any moment, a damaged file).

Where: `$XDG_DATA_HOME/gmonlens/baselines/<hash of the folder's real path>/` (`~/.local/share`
when XDG_DATA_HOME is unset or relative), or the folder the `pin_folder` setting names; never the
cache (deleting `$XDG_CACHE_HOME/gmonlens` loses nothing). A folder's pin directory holds:

- `lock`: taken (flock, exclusive) by every pin and clear of the folder, across processes: they run
  one after the other;
- `current`: the name of the pin in use, a pointer file replaced by rename (atomic);
- `pin-<random>/`: one pin (`binary`, `profile.N`, `baseline.json` with each file's size and
  digest), written in a staging folder of its own (`.stage-<random>/`), each file and the folder
  synced, then renamed to its name, and only then named by `current`.

So any kill leaves `current` naming the old pin or the new one, whole; what a killed pin left
(stages, pins no longer current) is removed by the next pin or clear, under the lock. A pin is
validated when read (sizes and digests): a damaged one is not used, and the reader says so.

Pins read before this layout (`$XDG_CACHE_HOME/gmonlens/baselines/<hash>/`) are still read when
no pin of the new layout exists; the next pin or clear removes them.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from gmonlens.binary.budget import stored_size
from gmonlens.common.errors import GmonlensError
from gmonlens.common.files import open_regular
from gmonlens.load import diskcache
from gmonlens.load.program import read_profile_bytes

META = "baseline.json"
LOCK = "lock"
CURRENT = "current"
_PIN_NAME = re.compile(r"pin-[0-9a-f]{16}")
LOCK_WAIT = 60.0  # seconds a pin or clear waits for another one of the same folder
BLOCK = 1 << 20  # digest block (holes and zero blocks are skipped, so a sparse file hashes fast)
# Called with the name of each step of a pin and a clear (tests kill the process there).
FAULT_HOOK: Callable[[str], None] | None = None


def _step(name: str) -> None:
    if FAULT_HOOK is not None:
        FAULT_HOOK(name)


def data_root() -> str | None:
    """`$XDG_DATA_HOME/gmonlens/baselines` (XDG: an unset, empty or relative value means
    `~/.local/share`); None when no absolute home is known."""
    base = os.environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "share")
    if not os.path.isabs(base):
        return None
    return os.path.join(base, "gmonlens", "baselines")


def _digest_of(folder: str) -> str:
    return hashlib.sha256(os.path.realpath(folder).encode("utf-8", "surrogateescape")).hexdigest()[:24]


def pin_dir(folder: str, choice: str | None = None) -> str | None:
    """The folder's pin directory: `choice` (the `pin_folder` setting, relative to `folder`) or
    its place under `data_root()`."""
    if choice:
        path = os.path.expanduser(choice.replace("${workspaceFolder}", folder))
        return os.path.normpath(path if os.path.isabs(path) else os.path.join(folder, path))
    root = data_root()
    return None if root is None else os.path.join(root, _digest_of(folder))


def legacy_dir(folder: str) -> str | None:
    """Where pins lived before: in the cache."""
    root = diskcache.cache_dir()
    return None if root is None else os.path.join(root, "baselines", _digest_of(folder))


@dataclass(frozen=True)
class Pin:
    """A pin, as read: its files (absolute paths) and label."""

    binary: str
    profiles: tuple[str, ...]
    label: str
    path: str  # the pin's own folder


@dataclass(frozen=True)
class Expected:
    """The profile the user sees, as its load read it: the binary's identity (device, inode, size,
    mtime in ns; None: not checked) and each profile's content key (`diskcache.content_key`)."""

    binary: tuple[int, int, int, int] | None
    profiles: tuple[str, ...]


# ---- reading --------------------------------------------------------------------------------


def pinned(folder: str, choice: str | None = None) -> tuple[Pin | None, str | None]:
    """(the folder's pin, None), (None, None) when there is none, or (None, why it is not used)."""
    d = pin_dir(folder, choice)
    if d is None:
        return None, None
    for _ in range(3):  # a pin made meanwhile removes the one `current` named: read it again
        name = _current(d)
        if name is None:
            return (_legacy(folder) if not choice else None), None
        try:
            return _read_pin(os.path.join(d, name)), None
        except FileNotFoundError:
            if _current(d) != name:
                continue
            return None, f"{d}: the pinned baseline {name} is incomplete (files missing): not used; pin again"
        except _Damaged as exc:
            return None, f"{d}: the pinned baseline {name} is damaged ({exc}): not used; pin again"
    return None, None


class _Damaged(Exception):
    pass


def _current(d: str) -> str | None:
    try:
        with open(os.path.join(d, CURRENT), "rb") as fh:
            name = fh.read(64).decode("ascii", "replace").strip()
    except OSError:
        return None
    return name if _PIN_NAME.fullmatch(name) else None


_VALID: dict[tuple[object, ...], bool] = {}  # (file, identity, size, digest) -> checked (once per process)


def _read_pin(path: str) -> Pin:
    """The pin in `path`, every file checked against its recorded size and digest; raises
    FileNotFoundError (gone) or _Damaged."""
    try:
        with open(os.path.join(path, META), encoding="utf-8") as fh:
            meta = json.load(fh)
        binary = str(meta["binary"])
        profiles = [str(p) for p in meta["profiles"]]
        files = {str(k): (int(v[0]), str(v[1])) for k, v in meta["files"].items()}
        label = str(meta.get("label") or "pinned baseline")
    except FileNotFoundError:
        raise
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        raise _Damaged(f"{META} unreadable: {type(exc).__name__}") from None
    for name in (binary, *profiles):
        if name not in files or os.sep in name or name.startswith("."):
            raise _Damaged(f"{name!r} not recorded")
        _check_file(os.path.join(path, name), *files[name])
    return Pin(os.path.join(path, binary), tuple(os.path.join(path, p) for p in profiles), label, path)


def _check_file(path: str, size: int, digest: str) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise _Damaged(f"{os.path.basename(path)}: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise _Damaged(f"{os.path.basename(path)} is not a regular file")
    if st.st_size != size:
        raise _Damaged(f"{os.path.basename(path)} has {st.st_size} bytes, {size} were pinned")
    key = (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, digest)
    if key not in _VALID:
        if file_digest(path) != digest:
            raise _Damaged(f"{os.path.basename(path)} differs from what was pinned")
        _VALID[key] = True


def file_digest(path: str) -> str:
    """sha256 over the file's non-zero blocks of BLOCK bytes (index and bytes) and its size: the
    same for a file and its sparse copy, and holes are not read."""
    h = hashlib.sha256()
    with open_regular(path, "pinned file") as fh:
        fd = fh.fileno()
        size = os.fstat(fd).st_size
        h.update(size.to_bytes(8, "little"))
        zero = bytes(BLOCK)
        for start, end in _extents(fd, size):
            block = start // BLOCK
            while block * BLOCK < end:
                data = os.pread(fd, BLOCK, block * BLOCK)
                if data != zero[: len(data)]:
                    h.update(block.to_bytes(8, "little"))
                    h.update(data)
                block += 1
    return h.hexdigest()


def _extents(fd: int, size: int) -> Iterator[tuple[int, int]]:
    """The data extents of an open file ((0, size) where the filesystem cannot say)."""
    pos = 0
    while pos < size:
        try:
            start = os.lseek(fd, pos, os.SEEK_DATA)
            end = os.lseek(fd, start, os.SEEK_HOLE)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # nothing but a hole after `pos`
                return
            yield pos, size
            return
        yield start, end
        pos = end


def _legacy(folder: str) -> Pin | None:
    """A pin of the old layout (in the cache; no digests: the files must exist)."""
    d = legacy_dir(folder)
    if d is None:
        return None
    try:
        with open(os.path.join(d, META), encoding="utf-8") as fh:
            meta = json.load(fh)
        binary = os.path.join(d, str(meta["binary"]))
        profiles = tuple(os.path.join(d, str(p)) for p in meta["profiles"])
        label = str(meta.get("label") or "pinned baseline")
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not os.path.isfile(binary) or not all(os.path.isfile(p) for p in profiles):
        return None
    return Pin(binary, profiles, label, d)


# ---- writing --------------------------------------------------------------------------------


def _own_dir(path: str) -> None:
    """Create `path` (and its parents, 0700) and check that it is a directory of ours that nobody
    else can write (not a link); raises GmonlensError."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.lstat(path)
    except OSError as exc:
        raise GmonlensError(path, f"cannot pin a baseline here: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        raise GmonlensError(path, "cannot pin a baseline here: not a directory of yours alone")


@contextlib.contextmanager
def _locked(d: str) -> Iterator[None]:
    """The folder's pin lock, held (waits up to LOCK_WAIT seconds for another pin or clear)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(os.path.join(d, LOCK), flags, 0o600)
    except OSError as exc:
        raise GmonlensError(d, f"cannot lock the pinned baseline: {exc.strerror or exc}") from None
    try:
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise GmonlensError(d, "another pin of this folder does not finish; try again") from None
                time.sleep(0.02)
        yield
    finally:
        os.close(fd)  # releases the lock


def _fsync_dir(d: str) -> None:
    fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sweep(d: str, keep: str | None) -> bool:
    """Remove what is not the current pin (stages and pins left by killed or older pins, the
    pointer's temporary files); under the lock. Whether a pin was removed."""
    removed = False
    try:
        names = os.listdir(d)
    except OSError:
        return False
    for name in names:
        path = os.path.join(d, name)
        if name.startswith(".stage-") or (_PIN_NAME.fullmatch(name) and name != keep):
            removed = removed or name.startswith("pin-")
            shutil.rmtree(path, ignore_errors=True)
            _step(f"removed {name[:6]}")
        elif name.startswith(".current-"):
            with contextlib.suppress(OSError):
                os.unlink(path)
    return removed


@dataclass(frozen=True)
class PinnedBaseline:
    """Where `pin` copied a folder's binary and profiles."""

    folder: str
    binary: str
    profiles: tuple[str, ...]


def pin(
    folder: str,
    binary: str,
    profiles: tuple[str, ...],
    label: str,
    *,
    choice: str | None = None,
    expected: Expected | None = None,
) -> PinnedBaseline:
    """Copy `binary` and `profiles` as the folder's pin (replacing the one before, atomically).
    With `expected`, refuse (GmonlensError, one line) when the files are no longer those the
    load read. Raises GmonlensError."""
    d = pin_dir(folder, choice)
    if d is None:
        raise GmonlensError(folder, "cannot pin a baseline: no home folder to keep it in (set XDG_DATA_HOME)")
    _own_dir(d)
    _check_room(d, (binary, *profiles))
    with _locked(d):
        _step("locked")
        _sweep(d, _current(d))
        stage = os.path.join(d, f".stage-{os.urandom(8).hex()}")
        try:
            os.mkdir(stage, 0o700)
            _step("staged")
            name = _fill(stage, binary, profiles, label, folder, expected)
            _fsync_dir(stage)
            final = f"pin-{os.urandom(8).hex()}"
            os.rename(stage, os.path.join(d, final))
            _fsync_dir(d)
            _step("renamed")
            _point(d, final)
        except OSError as exc:
            shutil.rmtree(stage, ignore_errors=True)
            raise GmonlensError(d, f"cannot pin a baseline: {exc.strerror or exc}") from None
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
        _sweep(d, final)
        _remove_legacy(folder)
        _step("done")
    path = os.path.join(d, final)
    return PinnedBaseline(folder, os.path.join(path, name[0]), tuple(os.path.join(path, n) for n in name[1:]))


def _fill(
    stage: str, binary: str, profiles: tuple[str, ...], label: str, folder: str, expected: Expected | None
) -> tuple[str, ...]:
    """Write the pin's files and `baseline.json` into `stage`; returns the names (binary first)."""
    files: dict[str, list[object]] = {}
    identity = copy_sparse(binary, os.path.join(stage, "binary"))
    if expected is not None and expected.binary is not None and identity != expected.binary:
        raise GmonlensError(
            binary,
            "changed since the profile shown was loaded (rebuilt?): nothing pinned; pin again once it is shown",
        )
    files["binary"] = [identity[2], file_digest(os.path.join(stage, "binary"))]
    _step("binary")
    names = ["binary"]
    for i, p in enumerate(profiles):
        data = read_profile_bytes(p)
        if expected is not None and (
            i >= len(expected.profiles) or diskcache.content_key(data) != expected.profiles[i]
        ):
            raise GmonlensError(
                p,
                "changed since the profile shown was loaded (a new run?): nothing pinned; pin again once it is shown",
            )
        name = f"profile.{i}"
        _write_new(os.path.join(stage, name), data)
        files[name] = [len(data), file_digest(os.path.join(stage, name))]
        names.append(name)
        _step(name)
    meta = {"binary": "binary", "profiles": names[1:], "label": label, "folder": folder, "files": files}
    _write_new(os.path.join(stage, META), json.dumps(meta).encode())
    _step("meta")
    return tuple(names)


def _write_new(path: str, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _point(d: str, name: str) -> None:
    """Make `name` the current pin: a new pointer file renamed over the old one."""
    tmp = os.path.join(d, f".current-{os.urandom(8).hex()}")
    _write_new(tmp, name.encode("ascii") + b"\n")
    _step("pointer written")
    os.replace(tmp, os.path.join(d, CURRENT))
    _fsync_dir(d)
    _step("pointer swapped")


def _remove_legacy(folder: str) -> bool:
    d = legacy_dir(folder)
    if d is None or not os.path.isdir(d):
        return False
    shutil.rmtree(d, ignore_errors=True)
    return True


def clear(folder: str, choice: str | None = None) -> bool:
    """Remove the folder's pin (whether there was one)."""
    d = pin_dir(folder, choice)
    had = _remove_legacy(folder) if not choice else False
    if d is None or not os.path.isdir(d):
        return had
    with _locked(d):
        _step("locked")
        had = _current(d) is not None or had
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(d, CURRENT))
        _step("pointer removed")
        _sweep(d, None)
    return had


def _check_room(d: str, paths: tuple[str, ...]) -> None:
    """Refuse a pin whose files take more room on disk than is free where it is kept."""
    need = 0
    for p in paths:
        try:
            st = os.stat(p)
        except OSError as exc:
            raise GmonlensError(p, f"cannot pin a baseline: {exc.strerror or exc}") from None
        need += stored_size(st.st_size, getattr(st, "st_blocks", 0))
    try:
        vfs = os.statvfs(d)
    except OSError:
        return
    free = vfs.f_bavail * vfs.f_frsize
    if need > free:
        raise GmonlensError(
            d,
            f"cannot pin a baseline: its files take {need >> 20} MB on disk and only {free >> 20} MB are free",
        )


def copy_sparse(src: str, dst: str) -> tuple[int, int, int, int]:
    """Copy the regular file `src` to the new file `dst` (never through a link), writing only its
    data: holes stay holes (a 1 GB sparse binary takes on disk what the original takes); synced.
    Returns the source's identity (device, inode, size, mtime ns) as read; raises GmonlensError
    when it changed while being copied."""
    with open_regular(src, "file to pin") as fin:
        fd_in = fin.fileno()
        before = os.fstat(fd_in)
        size = before.st_size
        fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            for start, end in _extents(fd_in, size):
                while start < end:
                    chunk = os.pread(fd_in, min(1 << 20, end - start), start)
                    if not chunk:
                        break
                    os.pwrite(fd, chunk, start)
                    start += len(chunk)
            os.ftruncate(fd, size)
            os.fsync(fd)
        finally:
            os.close(fd)
        after = os.fstat(fd_in)
        os.utime(dst, ns=(after.st_atime_ns, after.st_mtime_ns))
    identity = (before.st_dev, before.st_ino, before.st_size, before.st_mtime_ns)
    if identity != (after.st_dev, after.st_ino, after.st_size, after.st_mtime_ns):
        raise GmonlensError(src, "changed while it was being pinned: nothing pinned; pin again")
    return identity
