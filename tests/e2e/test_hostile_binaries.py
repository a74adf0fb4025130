"""Issue 22, the server's side: a workspace whose executable is a decompression bomb (1 MB on disk,
1 GiB of `.debug_str` once inflated), or that holds a 3.9 GB sparse copy of it, loads in a server
whose address space is limited to 512 MB (RLIMIT_AS, set before the interpreter starts: an overrun
fails, it does not swap); the profile is still shown (lenses) and the limit is said. The cache
warm-up runs under its own limit; a `profiles` glob through links to `.` sums one file once; a
hover on a routine with a hostile name shows the name."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

import elfpatch

from .rawlsp import RawServer, server_env, uri

pytestmark = pytest.mark.e2e
LIMIT = 512 << 20
LENS = "textDocument/codeLens"


def limited_cmd() -> list[str]:
    """The server, its address space limited before Python starts it."""
    code = (
        "import os, resource, sys; "
        f"resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT})); "
        "os.execv(sys.executable, [sys.executable, '-m', 'gmonlens_lsp', 'serve', '--stdio'])"
    )
    return [sys.executable, "-c", code]


def limited_env(cache: Path) -> dict[str, str]:
    # glibc reserves 64 MB of address space per thread arena: two arenas keep the limit about
    # memory actually used by the server's few threads
    return server_env(cache, MALLOC_ARENA_MAX="2")


@pytest.fixture
def ws(cproject: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "ws"
    shutil.copytree(cproject, dest, symlinks=True)
    return dest


def _load(ws: Path, cache: Path) -> tuple[RawServer, dict | None]:
    server = RawServer(cache, cmd=limited_cmd(), env=limited_env(cache))
    server.initialize(ws)
    return server, server.wait_state(timeout=120)


def test_a_bomb_binary_loads_in_512_mb(ws: Path, tmp_path: Path) -> None:
    app = ws / "build" / "app"
    app.write_bytes(elfpatch.debug_str_bomb(app.read_bytes(), 1 << 30))
    (ws / "gmonlens.yaml").write_text("binary: build/app\nprofiles: [build/gmon.out]\n")
    cache = tmp_path / "cache"
    server, status = _load(ws, cache)
    with server:
        assert status is not None and status["state"] == "loaded", (status, server.stderr.decode()[-3000:])
        resp = server.request(LENS, {"textDocument": {"uri": uri(ws / "src" / "main.c")}}, timeout=60)
        assert resp is not None and "result" in resp, resp
        said = server.shown() + server.logged()
        assert any("limit" in m and ".debug_str" in m for m in said), said
        assert all("()" not in m for m in said), said
        # the warm-up (under the same inherited limit) ends, and the server is still there
        server.wait_for(lambda: False, timeout=5)
        assert server.proc.poll() is None, server.stderr.decode()[-3000:]
        assert b"Traceback" not in server.stderr, server.stderr.decode()[-3000:]
        assert server.shutdown_and_exit() == 0


def test_a_sparse_copy_is_not_read(ws: Path, tmp_path: Path) -> None:
    """Discovery fits every executable in build/ against the profile: a 3.9 GB sparse copy (a few
    KB on disk) cost 25 s and 8 GB when it was read whole."""
    sparse = ws / "build" / "app-copy"
    shutil.copy2(ws / "build" / "app", sparse)
    with sparse.open("r+b") as fh:
        fh.truncate(3_900_000_000)
    server, status = _load(ws, tmp_path / "cache")
    with server:
        assert status is not None and status["state"] == "loaded", (status, server.stderr.decode()[-3000:])
        assert server.shutdown_and_exit() == 0


def test_a_glob_through_links_sums_each_file_once(ws: Path, tmp_path: Path) -> None:
    build = ws / "build"
    (build / "a").symlink_to(".")
    (build / "b").symlink_to(".")
    (ws / "gmonlens.yaml").write_text(
        "binary: build/app\nprofiles: ['build/"
        + "*/" * 12
        + "gmon.out', 'build/*/*/gmon.out', build/gmon.out]\n"
    )
    honest = RawServer(tmp_path / "c1", env=server_env(tmp_path / "c1"))
    with honest:
        honest.initialize(ws)
        status = honest.wait_state(timeout=120)
        assert status is not None and status["state"] == "loaded", status
        said = honest.shown() + honest.logged()
        assert any("levels" in m for m in said), said  # the 12-level pattern: one line, no walk
        assert all(len(m) < 2000 for m in said)
        total = status.get("message", "")
        assert honest.shutdown_and_exit() == 0
    (ws / "gmonlens.yaml").write_text("binary: build/app\nprofiles: [build/gmon.out]\n")
    once = RawServer(tmp_path / "c2", env=server_env(tmp_path / "c2"))
    with once:
        once.initialize(ws)
        status = once.wait_state(timeout=120)
        assert status is not None and status["state"] == "loaded", status
        assert status.get("message", "").split(" in ")[0] == total.split(" in ")[0]  # same seconds
        assert once.shutdown_and_exit() == 0


def test_untrusted_yaml_reads_nothing_outside(ws: Path, tmp_path: Path) -> None:
    (ws / "gmonlens.yaml").write_text(
        'binary: build/app\nprofiles: ["/etc/*", "/proc/*/environ", build/gmon.out]\n'
    )
    server = RawServer(tmp_path / "cache", env=server_env(tmp_path / "cache"))
    with server:
        server.initialize(ws)
        status = server.wait_state(timeout=120)
        assert status is not None and status["state"] == "loaded", status
        said = server.shown() + server.logged()
        assert sum("trusted workspace" in m for m in server.logged()) == 2, server.logged()
        assert not any("/proc/1/" in m or "/etc/passwd" in m for m in said), said
        assert server.shutdown_and_exit() == 0
    trusted = RawServer(tmp_path / "c2", env=server_env(tmp_path / "c2"))
    with trusted:
        trusted.initialize(ws, init_options={"trustedWorkspace": True})
        status = trusted.wait_state(timeout=120)
        assert status is not None  # /etc/* is read now: a problem or a load, the user's choice
        assert not any("trusted workspace" in m for m in trusted.logged())
        assert trusted.shutdown_and_exit() == 0
