"""The server's profile entry in the disk cache (`gmonlens_ide.cache_entries`) reads back the
Profile it was written from, every field of it (MIPS -c's `indirect_children` included: an entry
holding that mapping was refused as of the wrong shape, so every warm start computed the profile
again), and refuses one whose cross-references point nowhere."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gmonlens.load import diskcache
from gmonlens_ide import cache_entries
from golden_programs import PROGRAMS, Variant, engine_profile

KEY = "ab" * 32


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("GMONLENS_CACHE", raising=False)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_a_profile_reads_back_as_written(program: object) -> None:
    profile, _ = engine_profile(program, Variant("plain"))  # type: ignore[arg-type]
    assert cache_entries.write_profile(KEY, profile)
    assert cache_entries.read_profile(KEY) == profile


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_indirect_children_read_back(program: object) -> None:
    profile, _ = engine_profile(program, Variant("plain"))  # type: ignore[arg-type]
    callers = [r.id for r in profile.routines][:2]
    places = {r: len(profile.children[r]) for r in callers}
    mips = dataclasses.replace(profile, indirect_children=places)
    assert cache_entries.write_profile(KEY, mips)
    back = cache_entries.read_profile(KEY)
    assert back == mips and back.indirect_children == places


@pytest.mark.parametrize(
    "bad", [{10**6: 0}, {-1: 0}, {0: -1}, {0: 10**6}, {0: 1.5}, {"0": 0}], ids=lambda b: repr(b)
)
def test_indirect_children_pointing_nowhere_are_refused(bad: dict[object, object]) -> None:
    profile, _ = engine_profile(PROGRAMS[0], Variant("plain"))
    encoded = cache_entries._encode_profile(profile)
    encoded["indirect_children"] = bad
    assert diskcache.store("profile", KEY, encoded)
    assert cache_entries.read_profile(KEY) is None
