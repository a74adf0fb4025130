"""When `gmonlens mcp` loads the profile again (no compiler: the load itself is a stand-in): an
input rewritten (even to the same size and mtime: a new inode), a default profile appearing, a
failed load (tried again at each call); never when nothing changed."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gmonlens_ide import session
from gmonlens_ide.session import LoadOutcome
from gmonlens_ide.settings import Settings
from gmonlens_mcp.workspace import ToolFailure, Workspace, stamp


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "gmon.out").write_bytes(b"one")
    (tmp_path / "build" / "app").write_bytes(b"app")
    return tmp_path


class FakeLoads:
    """load_folder's stand-in: succeeds (inputs: the profile and the binary) unless told to fail."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.fail: str | None = None
        self.count = 0

    def __call__(self, folder: str, settings: Settings, generation: int, stop: Any = None) -> LoadOutcome:
        self.count += 1
        if self.fail:
            return LoadOutcome(None, blocking=self.fail)
        loaded = SimpleNamespace(settings=settings, profile_cached=True, profile_key=None, folder=folder)
        inputs = (
            str(self.folder / "gmonlens.yaml"),
            str(self.folder / "build" / "gmon.out"),
            str(self.folder / "build" / "app"),
        )
        return LoadOutcome(loaded, inputs=inputs)  # type: ignore[arg-type]


@pytest.fixture
def loads(folder: Path, monkeypatch: pytest.MonkeyPatch) -> FakeLoads:
    fake = FakeLoads(folder)
    monkeypatch.setattr(session, "load_folder", fake)
    return fake


def replace_same_size_and_time(path: Path, data: bytes) -> None:
    st = path.stat()
    new = path.with_name(path.name + ".new")
    new.write_bytes(data)
    os.utime(new, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(new, path)


def test_nothing_changed_no_reload(folder: Path, loads: FakeLoads) -> None:
    ws = Workspace(str(folder))
    first = ws.view()
    assert ws.view() is first and loads.count == 1


def test_rewritten_profile_reloads(folder: Path, loads: FakeLoads) -> None:
    ws = Workspace(str(folder))
    first = ws.view()
    replace_same_size_and_time(folder / "build" / "gmon.out", b"two")  # same size, same mtime
    assert ws.view() is not first and loads.count == 2
    assert ws.view() is ws.view() and loads.count == 2


def test_rebuilt_binary_and_settings_reload(folder: Path, loads: FakeLoads) -> None:
    ws = Workspace(str(folder))
    ws.view()
    (folder / "build" / "app").write_bytes(b"app, rebuilt")
    ws.view()
    (folder / "gmonlens.yaml").write_text("static_call_graph: true\n")
    view = ws.view()
    assert loads.count == 3 and view.loaded.settings.static_call_graph is True


def test_a_new_default_profile_reloads(folder: Path, loads: FakeLoads) -> None:
    ws = Workspace(str(folder))
    ws.view()
    (folder / "gmon.out").write_bytes(b"newer, in the folder itself")
    ws.view()
    assert loads.count == 2


def test_explicit_files_are_watched(folder: Path, loads: FakeLoads) -> None:
    other = folder / "elsewhere.gmon"
    other.write_bytes(b"x")
    ws = Workspace(str(folder), str(folder / "build" / "app"), (str(other),))
    view = ws.view()
    assert view.loaded.settings.profiles == (str(other),) and view.loaded.settings.binary == str(
        folder / "build" / "app"
    )
    other.write_bytes(b"xy")
    ws.view()
    assert loads.count == 2


def test_failed_load_is_tried_again(folder: Path, loads: FakeLoads) -> None:
    loads.fail = "build/gmon.out: bad magic"
    ws = Workspace(str(folder))
    for _ in range(2):
        with pytest.raises(ToolFailure, match="bad magic"):
            ws.view()
    loads.fail = None
    ws.view()
    assert loads.count == 3


def test_stamp_sees_inode_size_and_mtime(tmp_path: Path) -> None:
    f = tmp_path / "f"
    f.write_bytes(b"abc")
    before = stamp([str(f), str(tmp_path / "missing")])
    assert before[1][1:] == (-1, -1, -1, -1)
    replace_same_size_and_time(f, b"xyz")
    assert stamp([str(f), str(tmp_path / "missing")]) != before


def test_untrusted_workspace_keeps_its_paths_inside(
    folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A gmonlens.yaml naming files outside its folder (a cloned repository aiming at /etc or
    another user's files) is fenced unless `--trust-workspace` says the folder is trusted, as the
    language server does for a workspace its client does not trust."""
    outside = tmp_path_factory.mktemp("elsewhere")
    (outside / "gmon.out").write_bytes(b"x")
    (folder / "gmonlens.yaml").write_text(f"binary: {outside}/app\nprofiles: ['{outside}/*']\n")
    settings, problems = Workspace(str(folder)).settings()
    assert settings.binary is None and settings.profiles == ()
    assert len(problems) == 2 and all("outside" in p for p in problems)
    # the fix this server has (not the language server's client settings or VS Code's trust)
    assert all("--trust-workspace" in p and "VS Code" not in p for p in problems), problems
    trusted, problems = Workspace(str(folder), trusted=True).settings()
    assert trusted.binary == f"{outside}/app" and trusted.profiles == (f"{outside}/*",)
    assert problems == []


def test_files_named_relative_to_the_workspace(
    folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """`gmonlens mcp --workspace DIR build/app gmon.out` from another directory names DIR's files:
    a client starts its servers in a directory of its own (issue 27 item 14)."""
    elsewhere = tmp_path_factory.mktemp("cwd")
    before = os.getcwd()
    os.chdir(elsewhere)
    try:
        w = Workspace(str(folder), "build/app", ("gmon.out", "../runs/gmon.2"))
    finally:
        os.chdir(before)
    assert w.binary == str(folder / "build" / "app")
    assert w.profiles == (str(folder / "gmon.out"), str(folder.parent / "runs" / "gmon.2"))


def test_a_profile_being_written_is_not_loaded(folder: Path, loads: FakeLoads) -> None:
    """Issue 33 (5): a profile open for writing (a program in the middle of its exit) is not read:
    the last complete load answers, with a note; none yet: an error saying so."""
    gmon = folder / "build" / "gmon.out"
    fd = os.open(gmon, os.O_WRONLY | os.O_TRUNC)
    try:
        with pytest.raises(ToolFailure, match="a new profile is being written"):
            Workspace(str(folder)).view()
        assert loads.count == 0
    finally:
        os.close(fd)
    ws = Workspace(str(folder))
    first = ws.view()
    fd = os.open(gmon, os.O_WRONLY | os.O_TRUNC)
    try:
        os.write(fd, b"gmon, half")
        during = ws.view()
        assert during.loaded is first.loaded and loads.count == 1
        assert any("a new profile is being written" in p for p in during.settings_problems)
    finally:
        os.close(fd)
    after = ws.view()
    assert after.loaded is not first.loaded and loads.count == 2 and not after.settings_problems


def test_a_load_that_saw_a_write_keeps_the_last_view(
    folder: Path, loads: FakeLoads, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = Workspace(str(folder))
    first = ws.view()
    (folder / "build" / "gmon.out").write_bytes(b"two")
    real = loads.__call__

    def torn(*args: Any) -> LoadOutcome:
        real(*args)
        return LoadOutcome(None, writing=(str(folder / "build" / "gmon.out"),))

    monkeypatch.setattr(session, "load_folder", torn)
    assert ws.view().loaded is first.loaded and loads.count == 2
    monkeypatch.setattr(session, "load_folder", loads)
    assert ws.view().loaded is not first.loaded and loads.count == 3
