"""The zero-config checker itself (no program built): two routines of one base name with the same
figures, as LevelDB's two `CreateFilter`s had in one CI run, must not fail the hottest-routine check
when the first lens found is the other routine's."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from .zerocheck import FlatRow, Lens, Oracle, base_name, check_hottest

# the checker on hand-made input, no program: nothing here depends on a run's samples
pytestmark = pytest.mark.unsampled

BLOOM = "leveldb::(anonymous namespace)::BloomFilterPolicy::CreateFilter(leveldb::Slice const*, int) const"
INTERNAL = "leveldb::InternalFilterPolicy::CreateFilter(leveldb::Slice const*, int) const"


class FakeClient:
    """Answers hover and call hierarchy by line: line 1 is INTERNAL, line 5 is BLOOM."""

    def __init__(self) -> None:
        self.names = {1: INTERNAL, 5: BLOOM}

    def text_document_did_open(self, params: Any) -> None:
        pass

    async def text_document_hover_async(self, params: types.HoverParams) -> types.Hover:
        name = self.names[params.position.line]
        return types.Hover(
            contents=types.MarkupContent(kind="markdown", value=f"**{name}**\n\nTotal **0.01 s**")
        )

    async def text_document_prepare_call_hierarchy_async(
        self, params: types.CallHierarchyPrepareParams
    ) -> list[types.CallHierarchyItem]:
        r = types.Range(params.position, params.position)
        name = self.names[params.position.line]
        return [types.CallHierarchyItem(name, types.SymbolKind.Function, params.text_document.uri, r, r)]

    async def call_hierarchy_incoming_calls_async(self, params: Any) -> list[Any]:
        return []


def _check(tmp_path: Path, lines: list[int]) -> list[str]:
    src = tmp_path / "filter.cc"
    src.write_text("\n".join("CreateFilter" for _ in range(8)) + "\n")
    found = [Lens(src, line, 0, "CreateFilter", "0.01", "22298") for line in lines]
    oracle = Oracle(flat=[FlatRow(BLOOM, "0.01", "22298")], parents={}, entries=2)
    return asyncio.run(check_hottest(FakeClient(), found, oracle))


def test_same_figures_other_routine_first(tmp_path: Path) -> None:
    assert _check(tmp_path, [1, 5]) == []


def test_no_lens_names_the_routine(tmp_path: Path) -> None:
    problems = _check(tmp_path, [1])
    assert len(problems) == 1 and problems[0].startswith(f"{BLOOM}: hover"), problems


def test_base_name_operators() -> None:
    """An operator's lens is on the word `operator`; a name that only contains the word keeps its own
    (libsass's `Parser::parse_operators()` was looked for among the operators' lenses)."""
    assert base_name("Sass::Parser::parse_operators()") == "parse_operators"
    assert base_name("Sass::Offset::operator-(Sass::Offset const&) const") == "operator"
    assert base_name("Sass::Eval::operator()(Sass::Block*)") == "operator"
    assert base_name("Sass::Number::operator bool() const") == "operator"
    assert base_name("operator_table_size()") == "operator_table_size"
