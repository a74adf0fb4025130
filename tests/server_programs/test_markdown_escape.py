"""Issue 22: everything that reaches a Markdown hover is shown, not obeyed: a routine named
`**[h](x)**`, `<img ...>`, a newline or a terminal escape cannot open a link, raw HTML, emphasis or
a table cell, nor break the table; the only links are the renderer's, to file URIs."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from gmonlens_ide.session import load_folder
from gmonlens_ide.settings import Settings
from gmonlens_lsp import to_lsp
from gmonlens_lsp.from_lsp import places_of
from markdown_checks import HOSTILE, unescaped

pytestmark = pytest.mark.integration  # builds its inputs with gcc at test time


@pytest.mark.parametrize("name", HOSTILE)
def test_hover_shows_a_hostile_name(c_ws: Path, name: str) -> None:
    loaded = load_folder(str(c_ws), Settings(), 1).loaded
    assert loaded is not None
    p = loaded.profile
    work = next(r for r in p.routines if r.name == "work")
    places = places_of(loaded, to_lsp.neighbours(p, work.id))
    honest = to_lsp.hover_markdown(p, places, work.id)
    routines = tuple(replace(r, display_name=name) for r in p.routines)
    hostile = replace(p, routines=routines)
    md = to_lsp.hover_markdown(hostile, places, work.id)
    assert md.count("\n") == honest.count("\n")  # no line (table row) added or broken
    assert [r.count("|") - r.count("\\|") for r in md.splitlines()] == [
        r.count("|") - r.count("\\|") for r in honest.splitlines()
    ]
    assert not unescaped(md, "<") and "\x1b" not in md
    for target in re.findall(r"(?<!\\)\]\(([^)]*)\)", md):
        assert target.startswith("file://"), target
