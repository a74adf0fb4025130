"""The helper library (`preload_source.py`), built once with the user's own C compiler and cached.

The compiler is `$CC` (split as a shell would split it) or `cc`, found through the PATH of the
environment the command runs with: gmonlens never ships a binary of its own to load into the
user's processes. The library is cached under `$XDG_CACHE_HOME/gmonlens/preload/`, named by a
hash of the source, the compiler's command and the compiler file's identity (real path, size,
mtime), so a changed compiler or source builds a new one. The directory must be the user's alone
(0700, not writable by others: what is loaded into the user's programs is as trusted as their
~/.bashrc); the library is built in a fresh temporary directory inside it and renamed into place
(rename replaces a directory entry; nothing is written through a link). With the disk cache off
(`GMONLENS_CACHE=off`) or unusable, it is built into a temporary directory for this recording
only (`Preload.temporary`, removed after).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shlex
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass

from gmonlens.common.errors import GmonlensError
from gmonlens.load import diskcache
from gmonlens.load.program import open_elf
from gmonlens.runs.command import find_program
from gmonlens.runs.preload_source import SOURCE

LIBRARY = "libgmonlens-record.so"
BUILD_TIMEOUT = 120  # seconds a compiler may take for the library
_LINK_FLAGS = (("-ldl", "-lpthread"), ())  # old glibcs need them; newer ones have stubs; musl neither


@dataclass(frozen=True)
class Preload:
    """The built library (`path`), or why there is none (`problem`)."""

    path: str | None
    compiler: tuple[str, ...] = ()
    cached: bool = False  # taken from the cache, not built now
    problem: str | None = None
    temporary: str | None = None  # a directory to remove after the recording
    machine: int = 0  # the library's e_machine and class (an ELF of another kind is not preloaded)
    wide: bool = True


def compiler_command(env: Mapping[str, str], cwd: str) -> tuple[str, ...] | None:
    """The C compiler's command ($CC or cc), its program resolved through PATH; None if absent."""
    words = shlex.split(env.get("CC", "")) if env.get("CC", "").strip() else ["cc"]
    found = find_program(words[0], cwd, env) if words else None
    return (found, *words[1:]) if found else None


def _key(compiler: tuple[str, ...]) -> str:
    h = hashlib.sha256(SOURCE.encode())
    for word in compiler:
        h.update(b"\0" + word.encode("utf-8", "surrogateescape"))
    with contextlib.suppress(OSError):
        st = os.stat(compiler[0])
        h.update(f"\0{os.path.realpath(compiler[0])}\0{st.st_size}\0{st.st_mtime_ns}".encode())
    return h.hexdigest()[:32]


def _own_dir(path: str) -> bool:
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o022


def _usable(path: str) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o022


def _compile(compiler: tuple[str, ...], workdir: str, env: Mapping[str, str]) -> str | None:
    """Build the library in `workdir`; its path, or None with the compiler's first error line
    raised as GmonlensError."""
    source = os.path.join(workdir, "gmonlens-record.c")
    with open(source, "x", encoding="utf-8") as fh:
        fh.write(SOURCE)
    out = os.path.join(workdir, LIBRARY)
    last = ""
    for libs in _LINK_FLAGS:
        argv = [*compiler, "-shared", "-fPIC", "-O2", "-o", out, source, *libs]
        try:
            done = subprocess.run(
                argv, cwd=workdir, env=dict(env), capture_output=True, timeout=BUILD_TIMEOUT, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            raise GmonlensError(compiler[0], f"cannot build the helper library ({e})") from None
        if done.returncode == 0 and os.path.isfile(out):
            return out
        text = done.stderr.decode("utf-8", "replace").strip().splitlines()
        last = next(
            (line for line in text if "error" in line), text[0] if text else f"exit {done.returncode}"
        )
    raise GmonlensError(compiler[0], f"cannot build the helper library: {last}")


def _described(path: str, compiler: tuple[str, ...], cached: bool, temporary: str | None) -> Preload:
    try:
        with open_elf(path) as elf:
            machine, wide = elf.machine, elf.wide
    except GmonlensError as e:
        return Preload(
            None, compiler, problem=f"the helper library is not readable ({e})", temporary=temporary
        )
    return Preload(path, compiler, cached, None, temporary, machine, wide)


def build_preload(env: Mapping[str, str], cwd: str) -> Preload:
    """The helper library, from the cache or built now (module docstring); never raises: what
    went wrong is `Preload.problem`."""
    compiler = compiler_command(env, cwd)
    if compiler is None:
        return Preload(None, problem="no C compiler (cc, or $CC) found in PATH to build the helper library")
    base = diskcache.cache_dir()
    home = os.path.join(base, "preload") if base else None
    final = os.path.join(home, f"{_key(compiler)}-{LIBRARY}") if home else None
    if final and home and _own_dir(home) and _usable(final):
        return _described(final, compiler, True, None)
    cache_ok = bool(home and final and _own_dir(home))
    workdir = tempfile.mkdtemp(prefix="gmonlens-preload-", dir=home if cache_ok else None)
    try:
        built = _compile(compiler, workdir, env)
    except GmonlensError as e:
        shutil.rmtree(workdir, ignore_errors=True)
        return Preload(None, compiler, problem=str(e))
    if cache_ok and final and built:
        os.chmod(built, 0o755)
        os.replace(built, final)
        shutil.rmtree(workdir, ignore_errors=True)
        return _described(final, compiler, False, None)
    return _described(built or "", compiler, False, workdir)
