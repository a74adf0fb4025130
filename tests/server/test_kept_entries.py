"""The certainty and the line heat kept in the disk cache (issue 27, "Scale": a warm start of a
large profile recomputed both beside the first lenses): what is read back equals what was
computed, and an entry of another profile's shape reads as nothing."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from gmonlens.common.model import Profile
from gmonlens.load import diskcache
from gmonlens.profile.certainty import certainty
from gmonlens.profile.line_heat import LineSpan, line_heat_of
from gmonlens_ide import cache_entries
from golden_programs import CYCLES, engine_profile


@pytest.fixture
def profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Profile:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("GMONLENS_CACHE", raising=False)
    return engine_profile(CYCLES, CYCLES.variants[0])[0]


def test_certainty_kept_and_read_back(profile: Profile) -> None:
    computed = certainty(profile)
    assert cache_entries.read_certainty("1" * 64, profile) is None
    assert cache_entries.write_certainty("1" * 64, computed)
    back = cache_entries.read_certainty("1" * 64, profile)
    assert back is not None and back == computed
    assert list(back.routines) == list(computed.routines) and list(back.cycles) == list(computed.cycles)
    for i in range(len(profile.arcs)):
        assert back.estimated_arc(profile, i) == computed.estimated_arc(profile, i)
    other = replace(profile, routines=profile.routines[:-1])  # another profile under that key
    assert cache_entries.read_certainty("1" * 64, other) is None


def test_heat_kept_and_read_back(profile: Profile) -> None:
    spans = [LineSpan(0x1000, 0x1004, 1, "/src/a.c", 12, 3.0), LineSpan(0x1004, 0x1010, 1, None, 0, 1.5),
             LineSpan(0x2000, 0x2008, 2, "/src/b.c", 7, 0.25)]  # fmt: skip
    heat = line_heat_of(profile, spans)
    assert cache_entries.write_heat("2" * 64, heat.spans)
    back = cache_entries.read_heat("2" * 64, profile)
    assert back is not None and back.spans == heat.spans and back.lines == heat.lines
    assert (back.total_ticks, back.hz) == (profile.total_ticks, profile.hz)
    few = replace(profile, routines=profile.routines[:2])  # span routine 2 is not a routine of it
    assert cache_entries.read_heat("2" * 64, few) is None


def test_nothing_kept_without_a_cache(profile: Profile, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GMONLENS_CACHE", "off")
    assert diskcache.cache_dir() is None
    assert not cache_entries.write_certainty("3" * 64, certainty(profile))
    assert cache_entries.read_certainty("3" * 64, profile) is None
