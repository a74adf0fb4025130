"""End to end over LSP (pytest-lsp): lenses, hover, call hierarchy, symbols, commands, on fixture
workspaces moved away from where they were built."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from .lspclient import open_doc, position_of, session, state_of, uri, wait_status

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]

LENS = re.compile(
    r"^\d+\.\d% · self \d+\.\d\d s · total \d+\.\d\d s( · few samples)?( · \d+(\+\d+)? calls)?( · cycle \d+)?"
    r"( · folds \d+ clones?)?$"
)


async def lenses(client, path: Path) -> dict[int, list[str]]:
    u = await open_doc(client, path)
    result = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=u))
    )
    out: dict[int, list[str]] = {}
    for lens in result or []:
        assert lens.command is not None
        out.setdefault(lens.range.start.line, []).append(lens.command.title)
    return out


async def test_lenses_on_moved_c_workspace(cproject: Path, tmp_path: Path) -> None:
    async with session([cproject], tmp_path / "cache") as client:
        status = await wait_status(client)
        assert state_of(status) == "loaded", status
        main_c = cproject / "src" / "main.c"
        got = await lenses(client, main_c)
        helper_line = position_of(main_c, "static long helper").line
        work_line = position_of(main_c, "long work").line
        main_line = position_of(main_c, "int main").line
        assert set(got) == {helper_line, work_line, main_line}, got
        for titles in got.values():
            for t in titles:
                assert LENS.match(t), t
        assert got[work_line][0].endswith("400 calls"), got
        assert "calls" not in got[main_line][0], got  # spontaneous: gprof leaves the count blank
        util_c = cproject / "src" / "util.c"
        got_util = await lenses(client, util_c)
        even = position_of(util_c, "int is_even").line
        assert any("cycle 1" in t for t in got_util[even]), got_util
        header = cproject / "include" / "util.h"
        got_h = await lenses(client, header)
        assert position_of(header, "static inline int clamp").line in got_h, got_h


async def test_hover_definition_and_call_site(cproject: Path, tmp_path: Path) -> None:
    async with session([cproject], tmp_path / "cache") as client:
        await wait_status(client)
        main_c = cproject / "src" / "main.c"
        u = await open_doc(client, main_c)
        # at the definition of work
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=u),
                position=position_of(main_c, "work(int n)", offset=1),
            )
        )
        assert hover is not None
        text = hover.contents.value
        assert "**work**" in text
        # on the name's first character too (where VS Code puts the cursor for a lens's command)
        first = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=u),
                position=position_of(main_c, "work(int n)", offset=0),
            )
        )
        assert first is not None and "**work**" in first.contents.value
        assert "main" in text and "util_sum" in text and "helper" in text
        assert "400/400" in text
        assert "costs the same" in text
        assert re.search(r"\]\(file://[^)]*/moved/cproject/src/main\.c#L\d+\)", text), text
        # at a call site: util_sum( inside work
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=u),
                position=position_of(main_c, "util_sum(n)", offset=2),
            )
        )
        assert hover is not None and "**util_sum**" in hover.contents.value
        # the static helper called in main.c is main.c's helper, not util.c's
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=u),
                position=position_of(main_c, "helper(n)", offset=1),
            )
        )
        assert hover is not None
        assert "work" in hover.contents.value and "util_sum" not in hover.contents.value
        # cycle membership
        util_c = cproject / "src" / "util.c"
        u2 = await open_doc(client, util_c)
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=u2),
                position=position_of(util_c, "is_odd(int", offset=1),
            )
        )
        assert hover is not None and "cycle 1" in hover.contents.value
        # nothing on a non-routine word
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=u),
                position=position_of(main_c, "result", offset=1),
            )
        )
        assert hover is None


async def test_call_hierarchy_with_call_sites(cproject: Path, tmp_path: Path) -> None:
    async with session([cproject], tmp_path / "cache") as client:
        await wait_status(client)
        util_c = cproject / "src" / "util.c"
        main_c = cproject / "src" / "main.c"
        u = await open_doc(client, util_c)
        items = await client.text_document_prepare_call_hierarchy_async(
            types.CallHierarchyPrepareParams(
                text_document=types.TextDocumentIdentifier(uri=u),
                position=position_of(util_c, "util_sum(int", offset=1),
            )
        )
        assert items and items[0].name == "util_sum"
        assert items[0].uri == uri(util_c)
        incoming = await client.call_hierarchy_incoming_calls_async(
            types.CallHierarchyIncomingCallsParams(item=items[0])
        )
        assert [c.from_.name for c in incoming] == ["work"]
        assert incoming[0].from_.uri == uri(main_c)
        call_line = position_of(main_c, "util_sum(n)").line
        assert [r.start.line for r in incoming[0].from_ranges] == [call_line]
        assert "400 calls" in (incoming[0].from_.detail or "")
        outgoing = await client.call_hierarchy_outgoing_calls_async(
            types.CallHierarchyOutgoingCallsParams(item=items[0])
        )
        assert {c.to.name for c in outgoing} == {"helper"}
        assert outgoing[0].to.uri == uri(util_c)
        lines = sorted(r.start.line for r in outgoing[0].from_ranges)
        assert lines == [position_of(util_c, "return helper(n)").line], lines


def _same_figures(ws: Path, *names: str) -> bool:
    """Whether the routines whose display names hold `names` have the same self and children
    seconds and calls (`gmonlens report --json` on the workspace's build)."""
    build = ws / "build"
    out = subprocess.run(
        [
            str(Path(sys.executable).parent / "gmonlens"),
            "report",
            "--json",
            str(build / "shapes"),
            str(build / "gmon.out"),
        ],
        capture_output=True,
        check=True,
    ).stdout
    routines = json.loads(out)["routines"]
    figures = [
        {(r["self_seconds"], r["children_seconds"], r["calls"]) for r in routines if n in r["display_name"]}
        for n in names
    ]
    return all(len(f) == 1 for f in figures) and len(set.union(*figures)) == 1


async def test_cpp_methods_templates_overloads(cppproject: Path, tmp_path: Path) -> None:
    async with session([cppproject], tmp_path / "cache") as client:
        status = await wait_status(client)
        assert state_of(status) == "loaded", status
        shapes = cppproject / "src" / "shapes.cpp"
        header = cppproject / "src" / "shapes.hpp"
        got = await lenses(client, shapes)
        expect = {
            position_of(shapes, s).line
            for s in (
                "double Circle::area",
                "double Square::slow_square",
                "double scale(double",
                "int scale(int",
            )
        }
        assert expect <= set(got), got
        got_h = await lenses(client, header)
        assert position_of(header, "T accumulate").line in got_h  # both instantiations
        assert len(got_h[position_of(header, "T accumulate").line]) == 2
        assert position_of(header, "double area() const override {").line in got_h
        # overloads: hover picks the one declared on the line
        u = await open_doc(client, shapes, "cpp")
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=u),
                position=position_of(shapes, "scale(int", offset=1),
            )
        )
        assert hover is not None and "geo::scale(int)" in hover.contents.value
        # a template's instances declared on one line (a lens each): hover and call hierarchy give
        # them all, not the first one found (libsass's Cast<T>: its hottest instance was never named)
        uh = await open_doc(client, header, "cpp")
        at = position_of(header, "T accumulate", offset=2)
        doc = types.TextDocumentIdentifier(uri=uh)
        hover = await client.text_document_hover_async(types.HoverParams(text_document=doc, position=at))
        text = hover.contents.value if hover is not None else ""
        assert "**2 routines on this line**" in text, text[:300]
        # names are Markdown-escaped (issue 22): `<` is `\<`, shown as `<`
        assert "**int geo::accumulate\\<int\\>(" in text, text[:300]
        assert "**double geo::accumulate\\<double\\>(" in text, text[:300]
        items = await client.text_document_prepare_call_hierarchy_async(
            types.CallHierarchyPrepareParams(text_document=doc, position=at)
        )
        assert sorted(i.name.split("(")[0] for i in items or []) == [
            "double geo::accumulate<double>",
            "int geo::accumulate<int>",
        ], items
        # each instance's lens command answers for its own instance (the symbol is its third argument)
        raw = await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc))
        on_line = [x.command for x in raw or [] if x.range.start.line == at.line and x.command is not None]
        answers = [
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=c.command, arguments=c.arguments)
            )
            for c in on_line
        ]
        assert len(answers) == 2, answers
        if answers[0] == answers[1]:
            # both instances are called from one line of main as often (300 calls): only their
            # sampled time tells their callers apart, and it may be the same; then it must be so
            # in the profile itself, else one command answered for the other instance
            assert _same_figures(cppproject, "geo::accumulate<int>", "geo::accumulate<double>"), answers
        # library callees outside the workspace still appear in outgoing calls
        main_cpp = cppproject / "src" / "main.cpp"
        u3 = await open_doc(client, main_cpp, "cpp")
        items = await client.text_document_prepare_call_hierarchy_async(
            types.CallHierarchyPrepareParams(
                text_document=types.TextDocumentIdentifier(uri=u3),
                position=position_of(main_cpp, "int main", offset=5),
            )
        )
        assert items and items[0].name == "main"
        outgoing = await client.call_hierarchy_outgoing_calls_async(
            types.CallHierarchyOutgoingCallsParams(item=items[0])
        )
        names = [c.to.name for c in outgoing]
        assert any(n.startswith("geo::scale") for n in names)
        assert any("/usr/include" in c.to.uri for c in outgoing), [c.to.uri for c in outgoing]


async def test_symbols_and_commands(cproject: Path, tmp_path: Path) -> None:
    async with session([cproject], tmp_path / "cache") as client:
        await wait_status(client)
        symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))
        percents = [float(s.container_name.split("%")[0]) for s in symbols]
        assert symbols and percents == sorted(percents, reverse=True)  # hottest (total time) first
        helpers = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="help"))
        assert [s.name for s in helpers] == ["helper", "helper"]
        assert {s.location.uri.rsplit("/", 1)[-1] for s in helpers} == {"main.c", "util.c"}
        hottest = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="gmonlens.hottest", arguments=["self", 2])
        )
        assert len(hottest) == 2 and hottest[0]["name"] == "helper"
        assert set(hottest[0]) == {"name", "selfSeconds", "totalSeconds", "percent", "calls", "uri", "line"}
        report = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="gmonlens.report", arguments=[uri(cproject)])
        )
        assert report.startswith("Flat profile:") and "Call graph" in report
        cli = subprocess.run(
            [sys.executable, "-m", "gmonlens_cli", "report", str(cproject / "build" / "app"), str(cproject / "build" / "gmon.out")],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert report == cli.stdout
        main_c = cproject / "src" / "main.c"
        await open_doc(client, main_c)
        pos = position_of(main_c, "work(int n)")
        callers = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="gmonlens.showCallers",
                arguments=[uri(main_c), {"line": pos.line, "character": pos.character}],
            )
        )
        assert [c["name"] for c in callers] == ["main"] and callers[0]["calls"] == 400
        with pytest.raises(Exception, match="not defined"):
            await client.workspace_execute_command_async(types.ExecuteCommandParams(command="gmonlens.nope"))
