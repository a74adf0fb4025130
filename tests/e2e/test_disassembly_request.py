"""The annotated disassembly over LSP (pytest-lsp): `gmonlens/disassembly` from the cursor in a
source, by name and by its document URI; `workspace/textDocumentContent` for that URI (declared in
the server's capabilities); the `gmonlens.showDisassembly` command (a lens's arguments). The
figures are the engine's (`gmonlens disasm`): instructions adding up to the routine's self time,
calls to its arcs."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from lsprotocol import types

from gmonlens.load.loader import load
from routine_keys import named, sum_by_name

from .lspclient import open_doc, position_of, session, state_of, uri, wait_status

pytestmark = [pytest.mark.e2e]


async def disassembly(client: Any, params: dict[str, Any]) -> Any:
    return await client.protocol.send_request_async("gmonlens/disassembly", params)


@pytest.mark.asyncio
async def test_disassembly_request_content_and_command(cproject: Path, tmp_path: Path) -> None:
    profile = load(str(cproject / "build" / "app"), [str(cproject / "build" / "gmon.out")]).profile
    work = named(profile.routines)["work"]
    async with session([cproject], tmp_path / "cache") as client:
        caps = client.init_result.capabilities.workspace
        assert caps.text_document_content is not None
        assert "gmonlens-disasm" in caps.text_document_content.schemes
        assert state_of(await wait_status(client)) == "loaded"
        main_c = cproject / "src" / "main.c"
        await open_doc(client, main_c)
        pos = position_of(main_c, "long work", offset=5)
        at = {
            "textDocument": {"uri": uri(main_c)},
            "position": {"line": pos.line, "character": pos.character},
        }

        doc = await disassembly(client, at)
        assert doc.displayName == "work" and doc.uri.startswith("gmonlens-disasm:/work.s?")
        lines = doc.text.splitlines()
        assert lines[0].startswith("work (")
        total = sum(i.seconds for i in doc.instructions)
        assert total == pytest.approx(profile.seconds(work.self_ticks), abs=1e-5)
        assert all(lines[i.line].strip() and f"{i.address:x}:" in lines[i.line] for i in doc.instructions)
        calls: dict[str, int] = {}
        for i in doc.instructions:
            for c in i.calls:
                calls[c.callee] = calls.get(c.callee, 0) + c.count
        arcs = sum_by_name(  # per name, as the instructions' calls are
            (profile.routines[profile.arcs[k].child].display_name, profile.arcs[k].count)
            for k in profile.children[work.id]
        )
        assert calls == {k: v for k, v in arcs.items() if v}
        helper = next(c for i in doc.instructions for c in i.calls if c.callee == "helper")
        assert helper.path and helper.path.endswith(".c") and helper.sourceLine > 0
        assert any(s.path == str(main_c) for s in doc.sources)  # source lines link back

        compact = await disassembly(client, {**at, "compact": True})
        assert compact.uri == doc.uri + "&layout=compact"
        clines = compact.text.splitlines()
        for i in compact.instructions:  # one line each: marker, address, text; no figures
            assert clines[i.line][1:].lstrip().startswith(f"{i.address:x}:"), clines[i.line]
        assert (await disassembly(client, {"uri": compact.uri})).text == compact.text

        by_name = await disassembly(client, {"name": "work"})
        by_uri = await disassembly(client, {"uri": doc.uri})
        assert by_name.text == by_uri.text == doc.text
        path, _, query = doc.uri.partition("?")  # as VS Code's Uri.toString() sends it back
        encoded = await disassembly(client, {"uri": path + "?" + quote(query, safe="")})
        assert encoded.text == doc.text

        content = await client.workspace_text_document_content_async(
            types.TextDocumentContentParams(uri=doc.uri)
        )
        assert content.text == doc.text
        missing = await client.workspace_text_document_content_async(
            types.TextDocumentContentParams(uri=doc.uri.replace("routine=work", "routine=nothing"))
        )
        assert missing.text.startswith("gmonlens: no listing")

        shown = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="gmonlens.showDisassembly",
                arguments=[uri(main_c), {"line": pos.line, "character": pos.character}],
            )
        )
        assert shown["uri"] == doc.uri

        assert await disassembly(client, {"name": "no_such_routine"}) is None

        hover = await client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri(main_c)), position=pos)
        )
        assert f"[Show disassembly]({doc.uri})" in hover.contents.value


def test_warmup_fills_the_listing_cache(
    cproject: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm-up subprocess stores what a first listing would otherwise read from the DWARF (BFD's
    line table, gprof -l's names), and a listing from the cache is the same as one computed."""
    from gmonlens.common.options import AnalysisOptions
    from gmonlens.disasm.render import render_text
    from gmonlens.disasm.session import DisasmContext, has_listing_data
    from gmonlens.load.program import Program
    from gmonlens_ide import warmup

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    binary, gmon = str(cproject / "build" / "app"), str(cproject / "build" / "gmon.out")

    def listing() -> str:
        ctx = DisasmContext.open(binary, [gmon], AnalysisOptions())
        x = ctx.listing(ctx.find("work")[0])
        return render_text(x, ctx.display_names([x]), ctx.target_names)

    assert not has_listing_data(Program(binary))
    computed = listing()  # stores them as well
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache2"))
    warmup.warm(binary, [gmon], False)
    program = Program(binary)
    assert has_listing_data(program) and program.has_scopes()
    assert listing() == computed
