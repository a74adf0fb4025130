"""Discovery without a build: what cannot be found names the setting that fixes it; the build-*
folders searched are budgeted. (Its candidates on built programs: tests/server_programs.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from gmonlens_ide.discovery import discover
from gmonlens_ide.settings import Settings


def test_no_profile_says_which_setting(tmp_path: Path) -> None:
    problem = discover(str(tmp_path), Settings()).problem or ""
    assert "no gmon.out" in problem and "gmonlens.profiles" in problem and "build/" in problem
    assert "build-*/" in problem


def test_prefixed_folders_are_budgeted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A workspace with many `build-*` folders: at most _MAX_PREFIXED of them (in name order),
    among the first _MAX_SCANNED entries; plain files of that name are not folders."""
    from gmonlens_ide import discovery

    for k in range(40):
        (tmp_path / f"build-{k:02d}").mkdir()
    (tmp_path / "build-file").write_text("")
    dirs = discovery.search_dirs(str(tmp_path))
    assert dirs[0] == str(tmp_path)
    assert dirs[1:] == [str(tmp_path / f"build-{k:02d}") for k in range(discovery._MAX_PREFIXED)]
    monkeypatch.setattr(discovery, "_MAX_SCANNED", 5)
    assert len(discovery.search_dirs(str(tmp_path))) <= 6
