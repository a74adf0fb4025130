"""End to end over a raw JSON-RPC pipe: the protocol's error answers, and workspaces that once froze,
killed or misled the server (FIFOs, /dev/zero, settings that escaped validation, reload bursts with
a slow client, form feeds in sources, file names that are not UTF-8)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from workspace_builds import FIXTURES

from .rawlsp import RawServer, uri

pytestmark = pytest.mark.e2e

HOVER = "textDocument/hover"
LENS = "textDocument/codeLens"


def copy(ws: Path, dest: Path) -> Path:
    shutil.copytree(ws, dest, symlinks=True)
    return dest


def error_code(resp: dict | None) -> int | None:
    assert resp is not None, "no answer"
    return (resp.get("error") or {}).get("code")


def lenses(server: RawServer, path: Path, timeout: float = 30) -> list[dict]:
    resp = server.request(LENS, {"textDocument": {"uri": uri(path)}}, timeout=timeout)
    assert resp is not None and "result" in resp, resp
    return resp["result"] or []


# ---- the protocol ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"textDocument": {"uri": "file:///x.c"}, "position": {"line": -1, "character": 0}},
        {"textDocument": {"uri": "file:///x.c"}, "position": {"line": 2**40, "character": 0}},
        {"textDocument": {"uri": "file:///x.c"}, "position": {"line": "x", "character": 0}},
        {"textDocument": 5, "position": {"line": 0, "character": 0}},
        {"textDocument": {"uri": "file:///x.c"}},
        None,
        [],
    ],
    ids=["line-1", "line2^40", "line-str", "doc-int", "no-position", "null", "list"],
)
def test_bad_params_get_invalid_params(tmp_path: Path, params: object) -> None:
    with RawServer(tmp_path / "cache") as server:
        server.initialize(tmp_path)
        assert error_code(server.request(HOVER, params, timeout=5)) == -32602
        assert error_code(server.request(LENS, None, timeout=5)) == -32602
        assert error_code(server.request(HOVER, None, timeout=5, omit_params=True)) == -32602
        # still serving
        ok = server.request(
            HOVER, {"textDocument": {"uri": uri(tmp_path / "a.c")}, "position": {"line": 0, "character": 0}}
        )
        assert ok is not None and "result" in ok, ok
        assert server.shutdown_and_exit() == 0
        assert b"Traceback" not in server.stderr, server.stderr.decode()[-2000:]


def test_lifecycle_errors_and_exit_codes(tmp_path: Path) -> None:
    with RawServer(tmp_path / "cache") as server:
        params = {"textDocument": {"uri": uri(tmp_path / "a.c")}}
        assert error_code(server.request(LENS, params, timeout=5)) == -32002  # before initialize
        server.initialize(tmp_path)
        assert "result" in (server.request("shutdown", None) or {})
        assert error_code(server.request(LENS, params, timeout=5)) == -32600  # after shutdown
        assert error_code(server.request("shutdown", None, timeout=5)) == -32600
        server.notify("exit")
        assert server.wait_exit(10) == 0
    with RawServer(tmp_path / "cache") as server:
        server.initialize(tmp_path)
        server.notify("exit")  # without shutdown
        assert server.wait_exit(10) == 1


# ---- inputs that are not regular files ----------------------------------------------------------


def test_fifo_settings_file_does_not_freeze(cproject: Path, tmp_path: Path) -> None:
    ws = copy(cproject, tmp_path / "ws")
    os.mkfifo(ws / "gmonlens.yaml")
    with RawServer(tmp_path / "cache") as server:
        server.initialize(ws)
        status = server.wait_state(timeout=30)
        assert status is not None and status["state"] == "loaded", status  # settings ignored
        assert any("gmonlens.yaml" in m and "regular file" in m for m in server.logged()), server.logged()
        started = time.monotonic()
        assert server.shutdown_and_exit(timeout=10) == 0
        print(f"shutdown + exit: {time.monotonic() - started:.2f} s")


@pytest.mark.parametrize("kind", ["fifo-profile", "dev-zero-profile", "dev-zero-binary", "fifo-binary"])
def test_profile_or_binary_that_is_not_a_regular_file(cproject: Path, tmp_path: Path, kind: str) -> None:
    ws = copy(cproject, tmp_path / "ws")
    target = ws / "build" / ("odd.out" if "profile" in kind else "odd-app")
    if kind.startswith("fifo"):
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    profile = target.name if "profile" in kind else "gmon.out"
    binary = target.name if "binary" in kind else "app"
    (ws / "gmonlens.yaml").write_text(f"binary: build/{binary}\nprofiles: [build/{profile}]\n")
    with RawServer(tmp_path / "cache") as server:
        # trusted: a link to /dev/zero leads outside the folder (untrusted, it is not even opened)
        server.initialize(ws, init_options={"trustedWorkspace": True})
        status = server.wait_state(timeout=30)
        assert status is not None and status["state"] == "problem", (status, server.stderr.decode()[-2000:])
        assert str(target) in status["message"] and "regular file" in status["message"], status
        assert any(str(target) in m for m in server.shown()), server.shown()
        assert server.shutdown_and_exit(timeout=10) == 0


def test_fifo_profile_read_by_discovery(cproject: Path, tmp_path: Path) -> None:
    """A FIFO profile named by the settings, no binary: discovery fits it against the candidates
    (it once blocked there for ever, and the process stayed alive after `exit`)."""
    ws = copy(cproject, tmp_path / "ws")
    os.mkfifo(ws / "build" / "pipe.out")
    (ws / "gmonlens.yaml").write_text("profiles: [build/pipe.out]\n")
    with RawServer(tmp_path / "cache") as server:
        server.initialize(ws)
        status = server.wait_state(timeout=30)
        assert status is not None and status["state"] == "problem", status
        assert "pipe.out" in status["message"], status
        assert server.shutdown_and_exit(timeout=10) == 0


# ---- settings that escaped validation -----------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        "lens_title: '{percent.real}'\n",
        "lens_title: '{percent:>99999999999}'\n",
        "lens_title: '{percent:>200000000}'\n",
        'binary: "ca\\0lc"\n',
        "binary: " + "[" * 20000 + "]" * 20000 + "\n",
    ],
    ids=["attribute", "memory-error", "200MB-lenses", "nul", "deep-yaml"],
)
def test_bad_settings_are_reported_once_and_fixing_the_file_recovers(
    cproject: Path, tmp_path: Path, bad: str
) -> None:
    ws = copy(cproject, tmp_path / "ws")
    config = ws / "gmonlens.yaml"
    config.write_text(bad)
    main_c = ws / "src" / "main.c"
    with RawServer(tmp_path / "cache") as server:
        server.initialize(ws)
        status = server.wait_state(timeout=60)
        assert status is not None and status["state"] == "loaded", (status, server.stderr.decode()[-2000:])
        titles = [lens["command"]["title"] for lens in lenses(server, main_c)]
        assert titles and all(len(t) < 200 for t in titles), [len(t) for t in titles]
        reported = [m for m in server.logged() if str(config) in m]
        assert len(reported) == 1, server.logged()
        # a reload does not say it again
        before = len(server.statuses())
        server.request("workspace/executeCommand", {"command": "gmonlens.reload"}, timeout=60)
        server.wait_state(("loaded",), after=before)
        assert len([m for m in server.logged() if str(config) in m]) == 1, server.logged()
        # fixing the file recovers (the poller sees it)
        before = len(server.statuses())
        config.write_text("lens_title: 'FIXED {name}'\n")
        assert server.wait_state(("loaded",), after=before, timeout=30) is not None, server.statuses()
        titles = [lens["command"]["title"] for lens in lenses(server, main_c)]
        assert titles and all(t.startswith("FIXED ") for t in titles), titles
        assert server.shutdown_and_exit() == 0
        assert b"Traceback" not in server.stderr, server.stderr.decode()[-3000:]


# ---- reload bursts and a slow client -----------------------------------------------------------


def test_reload_burst_with_a_slow_client_is_quiet(cproject: Path, tmp_path: Path) -> None:
    """20 reloads 30 ms apart while the client takes 0.3 s to answer progress creation and lens
    refresh: no "Error in server: CANCELLED" popups, one final profile, the server still serves."""
    ws = copy(cproject, tmp_path / "ws")
    with RawServer(tmp_path / "cache", reply_delay=0.3) as server:
        server.initialize(ws)
        assert (server.wait_state(timeout=60) or {}).get("state") == "loaded"
        ids = []
        for _ in range(20):
            ids.append(server.request_async("workspace/executeCommand", {"command": "gmonlens.reload"}))
            time.sleep(0.03)
        for i in ids:
            resp = server.wait_response(i, timeout=60)
            assert resp is not None, "a reload command got no answer"
        time.sleep(1.5)  # late answers to given-up requests arrive now
        # the profile's health (a short run: few samples) is said once, however many reloads
        health = [m for m in server.shown() if m.startswith("Profile health")]
        assert len(health) <= 1 and len(server.shown()) == len(health), server.shown()
        assert not [m for m in server.logged() if "Error" in m], server.logged()
        assert lenses(server, ws / "src" / "main.c")
        assert server.statuses()[-1]["state"] == "loaded", server.statuses()[-3:]
        assert server.shutdown_and_exit() == 0
        assert b"Traceback" not in server.stderr and b"CANCELLED" not in server.stderr, (
            server.stderr.decode()[-3000:]
        )


# ---- line ends and file names ------------------------------------------------------------------


def test_form_feed_and_unicode_line_separators_do_not_move_lenses(tmp_path: Path) -> None:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURES / "cproject", ws)
    main_c = ws / "src" / "main.c"
    text = main_c.read_text()
    # GNU sources carry ^L page breaks; \v, NEL and LINE SEPARATOR in comments are legal C too
    odd = "/* page \f break \v tab \u0085 nel \u2028 ls \u2029 ps \x1c fs */\n\f\n"
    main_c.write_text(odd + text.replace("\nlong work", "\n\f\nlong work", 1))
    subprocess.run([str(ws / "build.sh")], check=True, capture_output=True, timeout=120)
    lines = main_c.read_text().replace("\r\n", "\n").split("\n")
    work_line = next(i for i, line in enumerate(lines) if line.startswith("long work("))
    with RawServer(tmp_path / "cache") as server:
        server.initialize(ws)
        assert (server.wait_state(timeout=60) or {}).get("state") == "loaded"
        found = [lens for lens in lenses(server, main_c) if lens["range"]["start"]["line"] == work_line]
        assert found, (work_line, lenses(server, main_c))
        start = found[0]["range"]["start"]
        assert start["character"] == lines[work_line].index("work"), start
        server.notify("textDocument/didOpen", {"textDocument": {"uri": uri(main_c), "languageId": "c", "version": 1,
                                                                  "text": main_c.read_text()}})  # fmt: skip
        for opened in (False, True):  # from disk, then from the open document
            if opened:
                time.sleep(0.2)
            hover = server.request(
                HOVER, {"textDocument": {"uri": uri(main_c)}, "position": start}, timeout=30
            )
            assert hover and hover.get("result") and "**work**" in hover["result"]["contents"]["value"], hover
        assert server.shutdown_and_exit() == 0


def test_file_names_that_are_not_utf8(cproject: Path, tmp_path: Path) -> None:
    root = Path(os.fsdecode(bytes(tmp_path) + b"/ws\xff"))
    ws = copy(cproject, root)
    profile = Path(os.fsdecode(bytes(ws / "build") + b"/gmon.out.\xfe"))
    (ws / "build" / "gmon.out").rename(profile)
    with RawServer(tmp_path / "cache") as server:
        server.initialize(ws)
        status = server.wait_state(timeout=60)
        assert status is not None and status["state"] == "loaded", (status, server.stderr.decode()[-2000:])
        assert "%FF" in uri(ws)
        found = lenses(server, ws / "src" / "main.c")
        assert found and found[0]["command"]["arguments"][0] == uri(ws / "src" / "main.c"), found[:1]
        assert server.shutdown_and_exit() == 0
