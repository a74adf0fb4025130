"""One popup per episode of a bad file (issue 33, item 8): one slow rewrite of gmon.out showed 7
"truncated or corrupted file" popups, each failed load naming another offset."""

from __future__ import annotations

from typing import Any

import pytest

from gmonlens_ide.session import FolderState, LoadOutcome
from gmonlens_lsp import reload
from gmonlens_lsp.factory import create_server


def test_one_popup_per_episode(monkeypatch: pytest.MonkeyPatch) -> None:
    ls = create_server()
    shown: list[str] = []
    logged: list[str] = []
    monkeypatch.setattr(ls, "window_show_message", lambda p: shown.append(p.message))
    monkeypatch.setattr(ls, "window_log_message", lambda p: logged.append(p.message))
    monkeypatch.setattr(reload, "send_status", lambda *a: None)
    state = FolderState(uri="file:///w", path="/w")

    def fail(text: str) -> None:
        reload._apply(ls, state, LoadOutcome(None, blocking=text))

    for offset in (21, 480, 1021, 4000):
        fail(f"/w/gmon.out: unexpected end of file in arc record at offset {offset}")
    assert len(shown) == 1 and "offset 21" in shown[0]
    assert sum("/w/gmon.out: unexpected end" in m for m in logged) == 3  # the others: logged
    fail("/w: no gmon.out, gmon.out.* or gmon.sum here")  # another file: another episode
    assert len(shown) == 2
    state.problem = None  # the folder loaded meanwhile: the episode is over
    state.said.clear()
    fail("/w/gmon.out: unexpected end of file in arc record at offset 99")
    assert len(shown) == 3


def test_no_profile_and_no_popup_while_a_profile_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    ls = create_server()
    shown: list[Any] = []
    statuses: list[tuple[str, str]] = []
    monkeypatch.setattr(ls, "window_show_message", shown.append)
    monkeypatch.setattr(reload, "send_status", lambda ls, state, s, m: statuses.append((s, m)))
    state = FolderState(uri="file:///w", path="/w")
    reload.being_written(ls, state, ("/w/build/gmon.out",))
    assert shown == [] and state.writing == ("/w/build/gmon.out",)
    assert statuses == [("loading", "a new profile is being written (/w/build/gmon.out)")]
