"""What the poller is left with after a load: a write to the profile while the load runs must be
seen as a change (so a reload follows); a load with no write in between must not cause one."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gmonlens_ide.session import FolderState, stamp
from gmonlens_lsp import reload
from gmonlens_lsp.factory import create_server

pytestmark = pytest.mark.integration  # builds its inputs with gcc/g++ at test time


async def _noop(*_args: Any, **_kwargs: Any) -> None:
    return None


def _first_load(ws: Path, monkeypatch: pytest.MonkeyPatch, *, written: str) -> FolderState:
    """Run one first load of `ws` through reload.reload, the client side stubbed out; after the
    load read its inputs, `written` ("gmon.out": the program runs again; "app": the binary is
    rewritten; "": nothing) changes."""
    real_load = reload.load_folder

    def load(*args: Any) -> Any:
        outcome = real_load(*args)
        if written == "gmon.out":
            subprocess.run(["./app", "120"], cwd=ws / "build", check=True, capture_output=True)
        elif written == "app":
            app = ws / "build" / "app"
            app.write_bytes(app.read_bytes())
        return outcome

    monkeypatch.setattr(reload, "load_folder", load)
    for name in ("send_status", "warn_once"):
        monkeypatch.setattr(reload, name, lambda *a, **k: None)
    for name in ("refresh_lenses", "refresh_inlay_hints", "_begin_progress"):
        monkeypatch.setattr(reload, name, _noop)
    monkeypatch.setattr(reload, "_apply", lambda ls, state, outcome: setattr(state, "inputs", outcome.inputs))
    state = FolderState(uri=ws.as_uri(), path=str(ws))
    asyncio.run(reload._reload(create_server(), state, state.generation))
    return state


@pytest.mark.parametrize("written", ["", "gmon.out", "app"])
def test_a_write_during_the_first_load_is_seen(
    c_ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written: str
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(c_ws, ws)
    for name in ("gmon.out", "app"):  # written well before the load
        old = os.path.getmtime(ws / "build" / name) - 60
        os.utime(ws / "build" / name, (old, old))
    state = _first_load(ws, monkeypatch, written=written)
    assert {str(ws / "build" / "gmon.out"), str(ws / "build" / "app")} <= set(state.inputs)
    assert state.last_stamp is not None
    seen_now = stamp(state.watch_paths())
    # the poller reloads exactly when what it kept differs from what it sees now
    differ = {os.path.basename(p) for p, v in seen_now.items() if state.last_stamp.get(p) != v}
    assert differ == ({written} if written else set())
