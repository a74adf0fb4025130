"""The baseline setting (gmonlens.yaml and client) and the pinned copy in the cache directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from gmonlens.common.errors import GmonlensError
from gmonlens_ide import baseline
from gmonlens_ide.settings import Baseline, effective_settings


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
    assert info.binary.startswith(str(tmp_path / "cache" / "gmonlens" / "baselines"))
    assert sorted(folder.iterdir()) == before  # nothing written into the folder
    (folder / "gmon.out").write_bytes(b"changed")  # the pinned copy does not follow the file
    _binary, profiles, label = baseline.configured(str(folder), s, str(folder / "app"))[0] or ("", (), "")
    assert label == "pinned now" and Path(profiles[0]).read_bytes() == b"gmon"
    assert baseline.clear(str(folder)) and not baseline.clear(str(folder))
    assert baseline.configured(str(folder), s, str(folder / "app"))[0] == found
    monkeypatch.setenv("GMONLENS_CACHE", "off")
    with pytest.raises(Exception, match="cache is off"):
        baseline.pin(str(folder), str(folder / "app"), (str(folder / "gmon.out"),), "x")


def _blocks(path: Path) -> int:
    return path.stat().st_blocks * 512


def test_pin_keeps_a_sparse_binary_sparse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 22: pinning copied a 1 GB sparse binary into the cache as 1 GB of real data."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("GMONLENS_CACHE", raising=False)
    folder = tmp_path / "ws"
    folder.mkdir()
    app = folder / "app"
    app.write_bytes(b"\x7fELF" + b"x" * 8192)
    with app.open("r+b") as fh:
        fh.truncate(1 << 30)
        fh.seek((1 << 30) - 5)
        fh.write(b"tail!")
    if _blocks(app) > 1 << 20:
        pytest.skip("this filesystem does not keep holes")
    (folder / "gmon.out").write_bytes(b"gmon")
    info = baseline.pin(str(folder), str(app), (str(folder / "gmon.out"),), "pinned")
    copy = Path(info.binary)
    assert copy.stat().st_size == 1 << 30 and _blocks(copy) < 1 << 20
    with copy.open("rb") as fh:
        assert fh.read(4) == b"\x7fELF"
        fh.seek((1 << 30) - 5)
        assert fh.read() == b"tail!"


def test_pin_larger_than_the_cache_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("GMONLENS_CACHE_MAX_MB", "1")
    monkeypatch.delenv("GMONLENS_CACHE", raising=False)
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "app").write_bytes(b"\x7fELF" + b"x" * (3 << 20))
    (folder / "gmon.out").write_bytes(b"gmon")
    with pytest.raises(GmonlensError, match="more than the cache's limit of 1 MB"):
        baseline.pin(str(folder), str(folder / "app"), (str(folder / "gmon.out"),), "pinned")
    assert not (tmp_path / "cache" / "gmonlens" / "baselines").exists() or not any(
        (tmp_path / "cache" / "gmonlens" / "baselines").rglob("binary")
    )
