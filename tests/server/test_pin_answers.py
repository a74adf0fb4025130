"""`gmonlens.pinBaseline` and `gmonlens.clearBaseline` always answer (issue 33, item 7): when a
newer reload (`gmonlens.reload`, a watched file, another pin) replaced the reload that shows the
pin, the handler took the cancellation of that reload as its own and pygls never answered (8 of
10 double presses, 4 of 4 pin-then-reload). Now: the result, or an error saying a later pin or
clear superseded it. The loads are stand-ins held at a gate, so each order is forced."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gmonlens_ide import pinstore
from gmonlens_ide.session import FolderState, LoadOutcome
from gmonlens_ide.settings import Settings
from gmonlens_lsp import reload
from gmonlens_lsp.factory import create_server
from gmonlens_lsp.features.baseline_commands import RequestFailed


async def _noop(*_args: Any, **_kwargs: Any) -> None:
    return None


class Rig:
    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.ls = create_server()
        self.uri = tmp_path.as_uri()
        self.state = FolderState(uri=self.uri, path=str(tmp_path))
        self.state.loaded = SimpleNamespace(  # type: ignore[assignment]
            binary=str(tmp_path / "app"),
            profiles=(str(tmp_path / "gmon.out"),),
            settings=Settings(),
            read_as=None,
        )
        self.ls.folders[self.uri] = self.state
        self.gate = threading.Event()
        self.loads: list[int] = []
        self.pins: list[str] = []

        def load_folder(folder: str, settings: Settings, generation: int, stop: Any) -> LoadOutcome:
            self.loads.append(generation)
            self.gate.wait(10)
            return LoadOutcome(None, superseded=True) if stop() else LoadOutcome(None, blocking="stand-in")

        def pin(folder: str, binary: str, profiles: tuple[str, ...], label: str, **kw: Any) -> Any:
            self.pins.append(label)
            return pinstore.PinnedBaseline(folder, f"/pins/{len(self.pins)}/binary", ("/pins/profile.0",))

        monkeypatch.setattr(reload, "load_folder", load_folder)
        monkeypatch.setattr(pinstore, "pin", pin)
        monkeypatch.setattr(pinstore, "clear", lambda folder, choice=None: True)
        for name in ("send_status", "warn_once"):
            monkeypatch.setattr(reload, name, lambda *a, **k: None)
        for name in ("refresh_lenses", "refresh_inlay_hints", "_begin_progress"):
            monkeypatch.setattr(reload, name, _noop)
        monkeypatch.setattr(reload, "_apply", lambda ls, state, outcome: None)

    def command(self, name: str) -> Any:
        return self.ls.protocol.fm.commands[name](self.uri)

    async def loading(self, count: int) -> None:
        while len(self.loads) < count:
            await asyncio.sleep(0.01)


def test_pin_then_reload_answers_with_the_pin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = Rig(tmp_path, monkeypatch)

    async def run() -> Any:
        pin = asyncio.ensure_future(rig.command("gmonlens.pinBaseline"))
        await rig.loading(1)  # the pin's reload runs
        reload.reload(rig.ls, rig.state)  # gmonlens.reload, or a watched file changing
        rig.gate.set()
        return await asyncio.wait_for(pin, 20)

    result = asyncio.run(run())
    assert result == [{"folder": str(tmp_path), "binary": "/pins/1/binary", "profiles": ["/pins/profile.0"]}]


@pytest.mark.parametrize("first", ["gmonlens.pinBaseline", "gmonlens.clearBaseline"])
def test_a_double_press_answers_both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: str) -> None:
    rig = Rig(tmp_path, monkeypatch)

    async def run() -> list[Any]:
        one = asyncio.ensure_future(rig.command(first))
        await rig.loading(1)
        two = asyncio.ensure_future(rig.command("gmonlens.pinBaseline"))  # supersedes the first's reload
        await asyncio.sleep(0.05)
        rig.gate.set()
        return list(await asyncio.wait_for(asyncio.gather(one, two, return_exceptions=True), 20))

    one, two = asyncio.run(run())
    assert isinstance(one, RequestFailed) and "superseded: a later pin or clear" in one.message, one
    assert one.code == -32803
    assert isinstance(two, list) and len(two) == 1, two


def test_a_refused_pin_is_an_error_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = Rig(tmp_path, monkeypatch)
    from gmonlens.common.errors import GmonlensError

    def refuse(*_a: Any, **_k: Any) -> Any:
        raise GmonlensError(str(tmp_path / "gmon.out"), "changed since the profile shown was loaded")

    monkeypatch.setattr(pinstore, "pin", refuse)
    rig.gate.set()
    with pytest.raises(RequestFailed, match=r"gmon\.out: changed since the profile shown was loaded"):
        asyncio.run(rig.command("gmonlens.pinBaseline"))
