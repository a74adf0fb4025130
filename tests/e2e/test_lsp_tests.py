"""A `gmonlens test` folder in the editor (issue 29), over LSP: the CMake fixture's suite
(tests/fixtures/workspaces/suiteproject) run by `gmonlens test` into the workspace's default
`gmonlens-test/`, found with no setting: the folder loads the whole suite; a routine's hover says
how many tests reach it and which costs most, with exact counts; `gmonlens.tests` lists them;
`gmonlens.selectTest` loads one test's profile (lenses, call hierarchy and flame graph then show
that test) and back to the whole suite."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from suite_builds import build_suite_workspace

from .lspclient import open_doc, position_of, session, uri, wait_status
from .test_lsp_features import lenses

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]


@pytest.fixture(scope="module")
def suite_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_suite_workspace(tmp_path_factory.mktemp("suite") / "ws")


def _text(hover: Any) -> str:
    return hover.contents.value if hover is not None else ""


async def hover_at(client: Any, path: Path, needle: str) -> str:
    for _ in range(40):  # the tests' figures are counted in the background after the first ask
        hover = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri(path)), position_of(path, needle, offset=4))
        )
        text = _text(hover)
        if "counting the calls" not in text:
            return text
        await asyncio.sleep(0.25)
    raise AssertionError("the tests' figures were never ready")


async def command(client: Any, name: str, *arguments: Any) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=name, arguments=list(arguments))
    )


async def test_hover_names_the_costliest_test_and_a_test_can_be_chosen(
    suite_ws: Path, tmp_path: Path
) -> None:
    work_c = suite_ws / "work.c"
    async with session([suite_ws], tmp_path / "cache") as client:
        status = await wait_status(client, ("loaded",))
        assert "whole suite of gmonlens-test" in str(status), status
        await open_doc(client, work_c)
        text = await hover_at(client, work_c, "int alpha(int x)")
        # alpha: called by 9 of the 11 tests run (-E slow), the most by `big` (100 calls)
        assert "**Tests**: reached by 9 of 11 tests; costliest: `big`" in text, text
        assert "100 calls" in text and "`failing` (failed)" not in text.split("costliest")[1].split("\n")[0]
        beta = await hover_at(client, work_c, "int beta(int x)")
        assert "reached by 9 of 11 tests; costliest: `big`" in beta and "200 calls" in beta, beta

        (listed,) = await command(client, "gmonlens.tests", uri(suite_ws))
        assert listed["mode"] == "auto" and listed["suite"].endswith("gmonlens-test")
        names = {t["name"]: t for t in listed["tests"]}
        assert len(names) == 11 and names["failing"]["status"] == "failed"

        before = await client.protocol.send_request_async("gmonlens/flameGraph", {"folder": uri(suite_ws)})
        n = len(client.statuses)
        chosen = await command(client, "gmonlens.selectTest", uri(suite_ws), {"test": "mid"})
        assert chosen["mode"] == "test" and chosen["selected"] == "mid"
        status = await wait_status(client, ("loaded",), after=n)
        assert "test mid of gmonlens-test" in str(status), status
        titles = [t for ts in (await lenses(client, work_c)).values() for t in ts]
        assert any(" · 10 calls" in t for t in titles) and any(" · 20 calls" in t for t in titles), titles
        items = await client.text_document_prepare_call_hierarchy_async(types.CallHierarchyPrepareParams(
            types.TextDocumentIdentifier(uri(work_c)), position_of(work_c, "int alpha(int x)", offset=4)))  # fmt: skip
        callers = await client.call_hierarchy_incoming_calls_async(
            types.CallHierarchyIncomingCallsParams(items[0])
        )
        assert [c.from_.name for c in callers] == ["work"] and "10 calls" in callers[0].from_.detail
        flame = await client.protocol.send_request_async("gmonlens/flameGraph", {"folder": uri(suite_ws)})
        assert flame is not None and flame.generation > before.generation  # the chosen test's load

        n = len(client.statuses)
        back = await command(client, "gmonlens.selectTest", uri(suite_ws), {"test": None})
        assert back["mode"] == "suite"
        status = await wait_status(client, ("loaded",), after=n)
        titles = [t for ts in (await lenses(client, work_c)).values() for t in ts]
        assert any(f" · {1 + 10 + 100 + 7 + 5 + 3 + 11 + 2 + 4} calls" in t for t in titles), (
            titles
        )  # alpha, every test
