"""What makes the server reload (issue 27, item 5): a profile, the binary or gmonlens.yaml
changing, or a new profile appearing where discovery looks; never another file created or deleted
in the folder (vim's swap files and its write probe `4913`, git, a build's objects), which changed
the folder's own mtime, part of the stamp, and cost a load, a progress notice and a lens refresh."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gmonlens_ide.session import FolderState, watched_stamp


@pytest.fixture
def state(tmp_path: Path) -> FolderState:
    (tmp_path / "build").mkdir()
    for name in ("gmon.out", "app"):
        (tmp_path / "build" / name).write_bytes(name.encode())
    st = FolderState(uri=tmp_path.as_uri(), path=str(tmp_path))
    st.inputs = (
        str(tmp_path / "gmonlens.yaml"),
        str(tmp_path / "build" / "gmon.out"),
        str(tmp_path / "build" / "app"),
    )
    return st


def test_other_files_coming_and_going_change_nothing(state: FolderState, tmp_path: Path) -> None:
    before = watched_stamp(state)
    (tmp_path / ".main.c.swp").write_bytes(b"vim")
    (tmp_path / "4913").write_bytes(b"")  # vim's write probe
    os.unlink(tmp_path / "4913")
    (tmp_path / ".git" / "objects").mkdir(parents=True)
    (tmp_path / "main.o").write_bytes(b"obj")
    (tmp_path / "build" / "main.o").write_bytes(b"obj")
    (tmp_path / "out").mkdir()  # a build folder discovery searches, still without a profile
    os.unlink(tmp_path / ".main.c.swp")
    assert watched_stamp(state) == before


@pytest.mark.parametrize(
    "change",
    [
        "rerun",
        "rebuild",
        "settings",
        "new profile in the root",
        "new profile in a build folder",
        "profile gone",
    ],
)
def test_what_counts_changes_the_stamp(state: FolderState, tmp_path: Path, change: str) -> None:
    before = watched_stamp(state)
    if change == "rerun":
        (tmp_path / "build" / "gmon.out").write_bytes(b"another run")
    elif change == "rebuild":
        (tmp_path / "build" / "app").write_bytes(b"app, rebuilt")
    elif change == "settings":
        (tmp_path / "gmonlens.yaml").write_text("binary: build/app\n")
    elif change == "new profile in the root":
        (tmp_path / "gmon.out").write_bytes(b"run here")
    elif change == "new profile in a build folder":
        (tmp_path / "out").mkdir()
        (tmp_path / "out" / "gmon.out.1234").write_bytes(b"run there")
    else:
        os.unlink(tmp_path / "build" / "gmon.out")
    assert watched_stamp(state) != before


async def _noop(*_args: object, **_kwargs: object) -> None:
    return None


@pytest.mark.parametrize("profile", [b"gmon\x01\x00\x00\x00" + b"\x00" * 12 + b"\x00\x07junk", None])
def test_a_failed_load_is_not_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, profile: bytes | None
) -> None:
    """Issue 33 (8): each failed load was tried once more by the poller (the stamp it kept after
    the load was not the one it polls). After a load that fails on a damaged profile (or finds
    none), the poller sees what it kept: no reload until something changes."""
    from gmonlens_lsp import reload
    from gmonlens_lsp.factory import create_server

    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "app").write_bytes(b"\x7fELF not really")
    if profile is not None:
        (tmp_path / "build" / "gmon.out").write_bytes(profile)
        old = os.path.getmtime(tmp_path / "build" / "gmon.out") - 60
        os.utime(tmp_path / "build" / "gmon.out", (old, old))
    outcomes: list[object] = []
    monkeypatch.setattr(reload, "_apply", lambda ls, state, outcome: outcomes.append(outcome))
    for name in ("send_status", "warn_once"):
        monkeypatch.setattr(reload, name, lambda *a, **k: None)
    for name in ("refresh_lenses", "refresh_inlay_hints", "_begin_progress"):
        monkeypatch.setattr(reload, name, _noop)
    state = FolderState(uri=tmp_path.as_uri(), path=str(tmp_path))
    import asyncio

    asyncio.run(reload._reload(create_server(), state, state.generation))
    (outcome,) = outcomes
    assert outcome.loaded is None and outcome.blocking and not getattr(outcome, "writing", ())  # type: ignore[attr-defined]
    assert watched_stamp(state) == state.last_stamp


def test_a_change_a_load_has_read_already_is_not_loaded_again(state: FolderState, tmp_path: Path) -> None:
    """Issue 33 (8): a client's file event and the poller both scheduled a reload of one change;
    the second came after a load had read it (each failed load was tried once more)."""
    import asyncio

    from gmonlens_lsp import reload, watching
    from gmonlens_lsp.factory import create_server

    ls = create_server()
    ls.folders[state.uri] = state
    state.last_stamp = state.read_stamp = watched_stamp(state)  # what the last load read
    reloads: list[int] = []
    real = reload.reload
    try:

        def fake(ls: object, st: object) -> object:
            reloads.append(1)
            return asyncio.sleep(0)

        reload.reload = fake  # type: ignore[assignment]

        async def settle() -> None:
            assert watching.changed(ls, state)
            await ls.debounce[state.uri]
            (tmp_path / "build" / "gmon.out").write_bytes(b"another run")
            assert watching.changed(ls, state)
            await ls.debounce[state.uri]

        asyncio.run(settle())
    finally:
        reload.reload = real  # type: ignore[assignment]
    assert reloads == [1]  # only the real change


def test_a_new_run_matching_the_profiles_setting_counts(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.gmon").write_bytes(b"a")
    from gmonlens_ide.settings import Settings

    st = FolderState(uri=tmp_path.as_uri(), path=str(tmp_path), settings=Settings(profiles=("runs/*.gmon",)))
    st.inputs = (str(tmp_path / "runs" / "a.gmon"),)
    before = watched_stamp(st)
    (tmp_path / "runs" / "notes.txt").write_text("x")
    assert watched_stamp(st) == before
    (tmp_path / "runs" / "b.gmon").write_bytes(b"b")
    assert watched_stamp(st) != before


def test_a_load_that_found_a_profile_being_written_is_followed_by_one(
    state: FolderState, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer may have written everything before the load looked and only then closed the file:
    the stamp does not change at the close, so the load that found it being written must not count
    as having read it."""
    import asyncio

    from gmonlens_ide.session import LoadOutcome
    from gmonlens_lsp import reload, watching
    from gmonlens_lsp.factory import create_server

    gmon = state.inputs[1]
    monkeypatch.setattr(
        reload, "load_folder", lambda *a: LoadOutcome(None, writing=(gmon,), inputs=state.inputs)
    )
    monkeypatch.setattr(reload, "send_status", lambda *a, **k: None)
    for name in ("refresh_lenses", "refresh_inlay_hints", "_begin_progress"):
        monkeypatch.setattr(reload, name, _noop)
    ls = create_server()
    ls.folders[state.uri] = state
    asyncio.run(reload._reload(ls, state, state.generation))
    assert state.writing == (gmon,) and state.read_stamp is None
    reloads: list[int] = []

    def fake(ls: object, st: object) -> object:
        reloads.append(1)
        return asyncio.sleep(0)

    monkeypatch.setattr(reload, "reload", fake)

    async def settle() -> None:  # the writer closed the file: nothing changed in the stamp
        assert watching.changed(ls, state)
        state.writing = ()  # as the poller does once the writer is done
        await ls.debounce[state.uri]

    asyncio.run(settle())
    assert reloads == [1]
