"""Hover, call hierarchy and the lenses' commands on routines whose names a macro makes (issue 21):
no identifier written on their line is their name, so the server answers with every routine
declared on that line (fixture tests/fixtures/workspaces/macroproject)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from .lspclient import open_doc, position_of, session, state_of, wait_status
from .workspaces import build_moved

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]

# (file, text on the line, offset into it, the routines declared on that line)
SHAPES = {
    "x-macro": ("src/ops.c", "OPS(DEFINE_OP)", 1, {"f_plus", "f_minus", "f_times"}),
    "x-macro-arg": ("src/ops.c", "OPS(DEFINE_OP)", 6, {"f_plus", "f_minus", "f_times"}),
    "libm-wrapper": ("src/libm.h", "LIBM_DD(floor)", 9, {"f_floor"}),
    "token-pasting-header": ("src/kind.h", "static long FN(Score)", 13, {"ScoreLiteral", "ScoreCommand"}),
    "define-rename": ("src/scan.c", "int yylex(void)", 5, {"mc_yylex"}),
}


@pytest.fixture(scope="module")
def macroproject(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_moved("macroproject", tmp_path_factory.mktemp("ws"))


async def test_hover_and_call_hierarchy_on_macro_made_names(macroproject: Path, tmp_path: Path) -> None:
    async with session([macroproject], tmp_path / "cache") as client:
        assert state_of(await wait_status(client)) == "loaded"
        for shape, (rel, needle, offset, names) in SHAPES.items():
            path = macroproject / rel
            doc = types.TextDocumentIdentifier(uri=await open_doc(client, path))
            at = position_of(path, needle, offset=offset)
            hover = await client.text_document_hover_async(types.HoverParams(text_document=doc, position=at))
            assert hover is not None, shape
            text = hover.contents.value
            assert all(n in text for n in names), (shape, text[:400])
            items = await client.text_document_prepare_call_hierarchy_async(
                types.CallHierarchyPrepareParams(text_document=doc, position=at)
            )
            assert {i.name.split("(")[0] for i in items or []} == names, (shape, items)


async def test_each_lens_command_gives_its_own_routines_callers(macroproject: Path, tmp_path: Path) -> None:
    async with session([macroproject], tmp_path / "cache") as client:
        assert state_of(await wait_status(client)) == "loaded"
        for rel, needle, calls in (
            ("src/ops.c", "OPS(DEFINE_OP)", {3000, 1500, 1000}),  # f_plus, f_minus, f_times
            ("src/kind.h", "static long FN(Score)", {100, 200}),  # ScoreLiteral, ScoreCommand
        ):
            path = macroproject / rel
            doc = types.TextDocumentIdentifier(uri=await open_doc(client, path))
            line = position_of(path, needle).line
            lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc))
            commands = [
                x.command for x in lenses or [] if x.range.start.line == line and x.command is not None
            ]
            assert len(commands) == len(calls), commands
            answers = [
                await client.workspace_execute_command_async(
                    types.ExecuteCommandParams(command=c.command, arguments=c.arguments)
                )
                for c in commands
            ]
            got = {sum(caller["calls"] for caller in a) for a in answers if a}
            assert got == calls, (rel, answers)
