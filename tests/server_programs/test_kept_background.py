"""A second load of the same large profile reads the certainty and the line heat its first load
computed, instead of computing them again beside the first lenses (issue 27, "Scale": at 100,000
routines a warm start spent 1.2-2 s CPU on them), and the health's thread check without reading
the symbol table (0.2-0.3 s). `CERTAINTY_IN_LOAD` is lowered so that the C
fixture counts as large."""

from __future__ import annotations

from pathlib import Path

import pytest

from gmonlens_ide import cache_entries, session
from gmonlens_ide.session import line_heat, load_folder
from gmonlens_ide.settings import Settings

pytestmark = pytest.mark.integration


def test_second_load_reads_what_the_first_computed(
    c_ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("GMONLENS_CACHE", raising=False)
    monkeypatch.setattr(session, "CERTAINTY_IN_LOAD", 0)
    first = load_folder(str(c_ws), Settings(), 1).loaded
    assert first is not None
    cert, heat = first.certainty, line_heat(first)
    assert heat is not None and heat.heat.spans
    cache_entries.write_profile(first.profile_key, first.profile)  # as the server's idle step does

    def refused(*args: object) -> None:
        raise AssertionError("computed again")

    monkeypatch.setattr(session, "certainty", refused)
    monkeypatch.setattr(session, "compute", refused)
    second = load_folder(str(c_ws), Settings(), 2).loaded
    assert second is not None and second.profile_cached
    # the health's thread check read from the cache too: the symbol table is not read to load
    assert second.program._once.peek("image") is None
    assert second.health == first.health
    assert second.certainty == cert
    again = line_heat(second)
    assert again is not None and again.heat.spans == heat.heat.spans
    assert again.files.keys() == heat.files.keys()
    for key, fh in heat.files.items():
        assert again.files[key].lines == fh.lines
