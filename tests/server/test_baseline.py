"""The baseline setting (gmonlens.yaml and client) and the pinned copy in the cache directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from gmonlens_lsp.workspace import baseline
from gmonlens_lsp.workspace.settings import Baseline, effective_settings


def test_baseline_setting_shapes(tmp_path: Path) -> None:
    (tmp_path / "gmonlens.yaml").write_text("baseline:\n  profiles: old/gmon.out\n  binary: old/app\n")
    s, problems = effective_settings(str(tmp_path), None)
    assert s.baseline == Baseline(("old/gmon.out",), "old/app") and problems == []
    s, _ = effective_settings(str(tmp_path), {"baseline": ["a.gmon", "b.gmon"]})
    assert s.baseline == Baseline(("a.gmon", "b.gmon"), None)
    s, problems = effective_settings(str(tmp_path), {"baseline": {"profile": "x"}})
    assert s.baseline == Baseline(("old/gmon.out",), "old/app")  # the file's value stays
    assert problems and "`baseline`" in problems[0]
    s, problems = effective_settings(str(tmp_path), {"baseline": {}})
    assert s.baseline == Baseline(("old/gmon.out",), "old/app") and problems == []  # {} means unset


def test_pin_copies_into_cache_and_wins_over_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("GMONLENS_CACHE", raising=False)
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "app").write_bytes(b"\x7fELF...")
    (folder / "gmon.out").write_bytes(b"gmon")
    (folder / "other.gmon").write_bytes(b"gmon2")
    s, _ = effective_settings(str(folder), {"baseline": "other.gmon"})
    found, problems = baseline.configured(str(folder), s, str(folder / "app"))
    assert found == (str(folder / "app"), (str(folder / "other.gmon"),), "other.gmon") and problems == []
    before = sorted(folder.iterdir())
    info = baseline.pin(str(folder), str(folder / "app"), (str(folder / "gmon.out"),), "pinned now")
    assert info["binary"].startswith(str(tmp_path / "cache" / "gmonlens" / "baselines"))
    assert sorted(folder.iterdir()) == before  # nothing written into the folder
    (folder / "gmon.out").write_bytes(b"changed")  # the pinned copy does not follow the file
    _binary, profiles, label = baseline.configured(str(folder), s, str(folder / "app"))[0] or ("", (), "")
    assert label == "pinned now" and Path(profiles[0]).read_bytes() == b"gmon"
    assert baseline.clear(str(folder)) and not baseline.clear(str(folder))
    assert baseline.configured(str(folder), s, str(folder / "app"))[0] == found
    monkeypatch.setenv("GMONLENS_CACHE", "off")
    with pytest.raises(Exception, match="cache is off"):
        baseline.pin(str(folder), str(folder / "app"), (str(folder / "gmon.out"),), "x")
