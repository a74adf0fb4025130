"""A small on-disk cache under `$XDG_CACHE_HOME/gmonlens` (default `~/.cache/gmonlens`).

An entry can be lost, torn, flipped, written by another version or planted: it must never crash
us or lie. So:

- Every entry is `MAGIC, FORMAT, payload length, sha256(payload), key` then the payload. The
  header is checked against the file's size (a claimed length is never allocated; entries are
  capped at the cache limit) and the checksum is verified *before* the payload is decoded.
- The decoded value is then checked for shape by the caller's `convert` function, which builds
  the domain value or raises (any exception) / returns None: the entry is then deleted and the
  caller rebuilds it. Nothing of the wrong shape is ever returned.
- Keys carry FORMAT. Binaries are identified by real path, device, inode, size, mtime_ns,
  ctime_ns and GNU build-id (`binary_key`); profiles by their content (`content_key`: they are
  small), so `cp -p` / `touch -r` / archives cannot bring back old numbers.
- The directory must be ours: created 0700, refused when owned by someone else or writable by
  group/others, and a relative XDG_CACHE_HOME is ignored (XDG Base Directory spec): the cache is
  never written into a workspace.
- Size limit with least-recently-used eviction: `GMONLENS_CACHE_MAX_MB` (default 256); a hit
  refreshes the entry's mtime, a write evicts the oldest entries past the limit.
- Temporary files (`.KIND-PID-RANDOM`, renamed into place when whole) are locked (flock) by their
  writer; one older than a minute and unlocked was left by a killed process: removed when a
  process first opens the cache, counted by the size limit and evictable like an entry.
  `GMONLENS_CACHE=off` turns the cache off.

Encoding: marshal, decided by measurement (bench/cache_codec.py on SQLite's entries; 2 busy cores,
load average ~10, medians of 21 interleaved runs): line table as int lists (281,549 rows,
4.2 MB): marshal 94 ms, msgpack 97 ms (112 ms with tuples); profile (0.42 MB): marshal 7.4 ms,
msgpack 11.2 ms; scopes (0.57 MB): marshal 2.6 ms, msgpack 10.4 ms; json and orjson were 1.5-4x
marshal. The line table is now stored as machine arrays (bytes), so its decoding is a copy and
the checks are C-speed; sha256 of 4.2 MB takes 2.3 ms. A safe encoder (msgpack) would thus cost
little, but buys little: marshal.loads only ever sees a payload whose sha256 matches, i.e. bytes
this code wrote, so corruption, torn writes and other versions never reach it. What remains is a
*deliberately* planted entry with a valid checksum, which needs write access to a 0700 directory
owned by the user, i.e. the power to run code as the user anyway (~/.bashrc). So no new
dependency. Failures to write are silent: the cache only ever saves time.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import marshal
import os
import re
import stat
import struct
import time
from collections.abc import Callable
from typing import Any, TypeVar

from gmonlens.common.errors import GmonlensError
from gmonlens.common.files import open_regular

FORMAT = 3  # 3: ARM Thumb function symbols read at their even address (issue 31)
MAGIC = b"GMLC"
_HEADER = struct.Struct("<4sIQ32s64s")  # magic, format, payload length, sha256(payload), key
SUFFIX = ".gmc"
DEFAULT_MAX_MB = 256
T = TypeVar("T")


class ShapeError(ValueError):
    """A cached value that does not have the shape its reader expects."""


def expect(ok: bool, what: str = "cache entry of the wrong shape") -> None:
    """Raise ShapeError unless `ok` (for `convert` functions)."""
    if not ok:
        raise ShapeError(what)


def only(values: Any, *types: type) -> bool:
    """Whether `values` (a list or tuple) holds only exact instances of `types` (C-speed check)."""
    return isinstance(values, (list, tuple)) and set(map(type, values)) <= set(types)


def enabled() -> bool:
    return os.environ.get("GMONLENS_CACHE", "").lower() not in ("off", "0", "no", "false")


def max_bytes() -> int:
    try:
        mb = float(os.environ.get("GMONLENS_CACHE_MAX_MB", DEFAULT_MAX_MB))
    except ValueError:
        mb = DEFAULT_MAX_MB
    return int(mb * 1024 * 1024) if mb > 0 else 0


def cache_dir() -> str | None:
    """Where entries live; None when the cache is off or no absolute base directory is known."""
    if not enabled() or max_bytes() == 0:
        return None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # unset, empty or relative: ignored, as the XDG spec says
        base = os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return None
    return os.path.join(base, "gmonlens")


def _safe_dir(create: bool) -> str | None:
    """The cache directory if it is ours alone (created 0700 when `create`), else None. The first
    time a process opens it, what killed writers left there is removed (`sweep_temporaries`)."""
    d = cache_dir()
    if d is None:
        return None
    try:
        if create:
            os.makedirs(d, mode=0o700, exist_ok=True)
        st = os.lstat(d)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        return None
    if d not in _SWEPT:
        _SWEPT.add(d)
        sweep_temporaries(d)
    return d


_SWEPT: set[str] = set()  # cache directories this process has swept
TEMP_AGE_NS = 60 * 10**9  # a temporary file older than this whose writer holds no lock is left over
_TEMP_NAME = re.compile(r"\.[A-Za-z0-9_-]+-[0-9]+-[0-9a-f]{12}")


def _leftover(path: str, st: os.stat_result, now_ns: int) -> bool:
    """Whether the temporary file at `path` was left by a writer that is gone: older than a minute
    and not locked (a writer holds an exclusive flock on its temporary file until it is renamed)."""
    if not stat.S_ISREG(st.st_mode) or now_ns - st.st_mtime_ns < TEMP_AGE_NS:
        return False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # a writer is at work
    finally:
        os.close(fd)
    return True


def sweep_temporaries(d: str) -> int:
    """Remove the temporary files killed writers left in the cache directory `d` (`_leftover`);
    returns how many."""
    now, removed = time.time_ns(), 0
    try:
        with os.scandir(d) as it:
            for e in it:
                if _TEMP_NAME.fullmatch(e.name) and _leftover(e.path, e.stat(follow_symlinks=False), now):
                    _drop(e.path)
                    removed += 1
    except OSError:
        pass
    return removed


def _key(*parts: str | bytes | int | None) -> str:
    h = hashlib.sha256(f"gmonlens-cache-{FORMAT}".encode())
    for p in parts:
        b = p if isinstance(p, bytes) else str(p).encode("utf-8", "surrogateescape")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


def binary_key(path: str, build_id: str | None) -> str | None:
    """A key that changes whenever the file at `path` changes (None if it is not a readable
    regular file): real path, device, inode, size, mtime and ctime in ns, build-id, FORMAT."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    real = os.path.realpath(path)
    return _key(
        "binary", real, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, build_id or ""
    )


def content_key(data: bytes) -> str:
    """A key for a small input known by its bytes (a profile file)."""
    return _key("content", data)


def derived_key(base: str | None, *parts: bytes) -> str | None:
    """A key for a value computed from what `base` identifies and `parts` (bytes)."""
    if base is None:
        return None
    return _key("derived", base, *parts)


def _path(d: str, kind: str, key: str) -> str:
    return os.path.join(d, f"{kind}-{key}{SUFFIX}")


def _drop(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _read_payload(path: str, key: str, cap: int) -> bytes | None:
    """The verified payload of the entry at `path`; None (entry deleted when bad) otherwise."""
    try:
        fh = open_regular(path, "cache entry")
    except GmonlensError:
        return None
    with fh:
        try:
            size = os.fstat(fh.fileno()).st_size
            head = fh.read(_HEADER.size)
            if len(head) != _HEADER.size:
                raise ShapeError("short header")
            magic, fmt, length, digest, stored_key = _HEADER.unpack(head)
            if magic != MAGIC or fmt != FORMAT or stored_key != key.encode("ascii"):
                raise ShapeError("foreign entry")
            if length > cap or length != size - _HEADER.size:  # checked before any allocation
                raise ShapeError("length does not match the file")
            payload = fh.read(length)
            if len(payload) != length or hashlib.sha256(payload).digest() != digest:
                raise ShapeError("checksum mismatch")
        except (OSError, ShapeError, struct.error):
            _drop(path)
            return None
    return payload


# A large entry is marshalled in pieces: every list, tuple or dict of more than CHUNK_ITEMS items
# in it (at any depth, through containers of at most CHUNK_ITEMS items) becomes
# (_CHUNK, "l"/"t"/"d", [marshal of at most CHUNK_ITEMS items, CHUNK_BYTES bytes]), and reading
# decodes piece by piece. One marshal.loads of a whole DWARF index (5 MB at 100,000 routines)
# held the GIL 120-490 ms (bench/loopwatch.py), one marshal.dumps of a profile entry's columns
# at 100,000 routines 48.6 ms of thread CPU (bench/gilholds.py); a piece takes a few ms, and the
# server's event loop runs between pieces.
# Nothing inside a piece is walked again on reading.
_CHUNK = "\x00gmonlens-pieces"
CHUNK_ITEMS = 128  # items a piece holds at most
CHUNK_BYTES = 64 * 1024  # and bytes, unless one item is larger
MAX_DEPTH = 16  # containers nested deeper than this are marshalled whole / not joined
_LETTER: dict[type, str] = {dict: "d", list: "l", tuple: "t"}


def _pieces(value: Any) -> Any:
    """A list, tuple or dict of more than CHUNK_ITEMS items as (_CHUNK, letter, pieces)."""
    t = type(value)
    items = list(value.items()) if t is dict else value
    pieces: list[bytes] = []
    for at in range(0, len(items), CHUNK_ITEMS):
        part = list(items[at : at + CHUNK_ITEMS])
        blob = marshal.dumps(part)
        if len(blob) <= CHUNK_BYTES:  # the usual: CHUNK_ITEMS small items, one marshal.dumps
            pieces.append(blob)
        else:
            pieces.extend(_by_size(part))
    return (_CHUNK, _LETTER[t], pieces)


def _by_size(items: list[Any]) -> list[bytes]:
    """`items` marshalled in pieces of at most CHUNK_BYTES (an item larger alone)."""
    pieces: list[bytes] = []
    part: list[Any] = []
    size = 0
    for item in items:
        n = len(marshal.dumps(item))
        if part and size + n > CHUNK_BYTES:
            pieces.append(marshal.dumps(part))
            part, size = [], 0
        part.append(item)
        size += n
    pieces.append(marshal.dumps(part))
    return pieces


def _split(value: Any, depth: int = 0) -> Any:
    """`value` with every large container in it in pieces (see CHUNK_ITEMS)."""
    t = type(value)
    if t not in _LETTER or depth > MAX_DEPTH:
        return value
    if len(value) > CHUNK_ITEMS:
        return _pieces(value)
    if t is dict:
        return {k: _split(v, depth + 1) for k, v in value.items()}
    return t(_split(v, depth + 1) for v in value)


def _whole(value: Any) -> Any:
    """A container `_pieces` made, read back (raises ShapeError for pieces of the wrong shape)."""
    letter, pieces = value[1], value[2]
    expect(letter in ("d", "l", "t") and type(pieces) is list and only(pieces, bytes))
    items: list[Any] = []
    for piece in pieces:  # one marshal.loads each: the GIL is let go between them
        part = marshal.loads(piece)
        expect(type(part) is list)
        items += part
    if letter == "d":
        expect(all(type(kv) is tuple and len(kv) == 2 for kv in items))
        return dict(items)
    return items if letter == "l" else tuple(items)


def _join(value: Any, depth: int = 0) -> Any:
    """The value `_split` was given (a piece's items are taken as they are)."""
    t = type(value)
    if t not in _LETTER or depth > MAX_DEPTH:
        return value
    if t is tuple and len(value) == 3 and value[0] == _CHUNK:
        return _whole(value)
    if len(value) > CHUNK_ITEMS:  # written whole (an older entry's inner container)
        return value
    if t is dict:
        return {k: _join(v, depth + 1) for k, v in value.items()}
    return t(_join(v, depth + 1) for v in value)


def load(kind: str, key: str | None, convert: Callable[[Any], T | None]) -> T | None:
    """The entry `kind`/`key` passed through `convert` (shape check and construction), or None.

    `convert` raises (any Exception) or returns None when the value has the wrong shape; the entry
    is then deleted. A hit counts as a use for the least-recently-used eviction.
    """
    d = _safe_dir(create=False)
    if d is None or key is None or len(key) != 64:
        return None
    path = _path(d, kind, key)
    payload = _read_payload(path, key, max_bytes())
    if payload is None:
        return None
    try:
        data = _join(marshal.loads(payload))
        del payload  # not held while `convert` builds the records (40 MB at 100,000 routines)
        value = convert(data)
    except Exception:  # marshal's own errors or a value of the wrong shape
        value = None
    if value is None:
        _drop(path)
        return None
    with contextlib.suppress(OSError):
        os.utime(path)
    return value


def exists(kind: str, key: str | None) -> bool:
    d = _safe_dir(create=False)
    return d is not None and key is not None and os.path.isfile(_path(d, kind, key))


def store(kind: str, key: str | None, value: Any) -> bool:
    """Write an entry (plain data: marshal's types); False when nothing was written."""
    d = _safe_dir(create=True)
    if d is None or key is None or len(key) != 64:
        return False
    try:
        payload = marshal.dumps(_split(value))
    except ValueError:  # not plain data
        return False
    limit = max_bytes()
    if len(payload) + _HEADER.size > limit:
        return False
    head = _HEADER.pack(MAGIC, FORMAT, len(payload), hashlib.sha256(payload).digest(), key.encode("ascii"))
    tmp = None
    try:
        fd, tmp = _new_file(d, kind)
        with os.fdopen(fd, "wb") as fh:
            fh.write(head)
            fh.write(payload)
        os.replace(tmp, _path(d, kind, key))
    except OSError:
        if tmp is not None:
            _drop(tmp)
        return False
    evict(limit)
    return True


def _new_file(d: str, kind: str) -> tuple[int, str]:
    """A new file of its own in `d` (`.KIND-PID-RANDOM`, mode 0600, created exclusively and never
    through a symlink), open for writing: `tempfile.mkstemp`'s contract without importing
    tempfile (random, shutil, bz2, lzma: milliseconds of a cold report). Raises OSError."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        path = os.path.join(d, f".{kind}-{os.getpid()}-{os.urandom(6).hex()}")
        try:
            fd = os.open(path, flags, 0o600)
        except FileExistsError:
            continue
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held until closed: "a writer is at work"
        return fd, path
    raise FileExistsError(f"{d}: no free temporary name")


def evict(limit: int | None = None) -> None:
    """Delete the least recently used entries until the cache holds at most `limit` bytes
    (default: the configured limit); files of older formats go first."""
    d = _safe_dir(create=False)
    if d is None:
        return
    limit = max_bytes() if limit is None else limit
    entries: list[tuple[bool, int, int, str]] = []
    total, now = 0, time.time_ns()
    try:
        with os.scandir(d) as it:
            for e in it:
                temporary = _TEMP_NAME.fullmatch(e.name) is not None
                if not (temporary or e.name.endswith(SUFFIX) or e.name.endswith(".marshal")) or not e.is_file(
                    follow_symlinks=False
                ):
                    continue
                st = e.stat(follow_symlinks=False)
                total += st.st_size  # a writer's file counts against the limit too
                if temporary and not _leftover(e.path, st, now):
                    continue  # being written: never removed under its writer
                entries.append((e.name.endswith(SUFFIX), st.st_mtime_ns, st.st_size, e.path))
    except OSError:
        return
    if total <= limit:
        return
    for _current, _mtime, size, path in sorted(entries):
        _drop(path)
        total -= size
        if total <= limit * 9 // 10:
            break
