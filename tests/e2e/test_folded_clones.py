"""gprof's folding of clones shown in the editor (issue 21, fixture foldproject): find_slot's -O2
clone (`find_slot.isra.0`, a name gprof ignores) follows table.c's getter `table_size`, so gprof
credits the clone's samples and calls to the getter. The lens keeps gprof's figures and says
`folds 1 clone`; the hover names the clone and its share; `clones: apart` shows it on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from .lspclient import open_doc, position_of, session, state_of, wait_status
from .workspaces import build_moved

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]


@pytest.fixture(scope="module")
def foldproject(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_moved("foldproject", tmp_path_factory.mktemp("ws"))


async def _titles(client, path: Path) -> dict[int, list[str]]:  # type: ignore[no-untyped-def]
    doc = types.TextDocumentIdentifier(uri=await open_doc(client, path))
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc))
    out: dict[int, list[str]] = {}
    for lens in lenses or []:
        out.setdefault(lens.range.start.line, []).append(lens.command.title)
    return out


async def test_lens_and_hover_say_what_gprof_folded(foldproject: Path, tmp_path: Path) -> None:
    table_c = foldproject / "src" / "table.c"
    async with session([foldproject], tmp_path / "cache") as client:
        assert state_of(await wait_status(client)) == "loaded"
        at = position_of(table_c, "int table_size", offset=5)
        titles = (await _titles(client, table_c))[at.line]
        assert len(titles) == 1 and titles[0].endswith("80000 calls · folds 1 clone"), titles
        doc = types.TextDocumentIdentifier(uri=await open_doc(client, table_c))
        hover = await client.text_document_hover_async(types.HoverParams(text_document=doc, position=at))
        text = hover.contents.value if hover else ""
        assert "`find_slot.isra.0` (100% of its self time, 40000 of its 80000 calls)" in text, text


async def test_clones_apart(foldproject: Path, tmp_path: Path) -> None:
    table_c, main_c = foldproject / "src" / "table.c", foldproject / "src" / "main.c"
    async with session([foldproject], tmp_path / "cache", configuration={"clones": "apart"}) as client:
        assert state_of(await wait_status(client)) == "loaded"
        getter = (await _titles(client, table_c))[position_of(table_c, "int table_size").line]
        assert getter[0].startswith("0.0% · self 0.00 s") and getter[0].endswith("40000 calls"), getter
        slot = (await _titles(client, main_c)).get(position_of(main_c, "long find_slot").line, [])
        assert slot and slot[0].endswith("40000 calls") and "self 0.00 s" not in slot[0], slot
