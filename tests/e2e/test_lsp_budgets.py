"""A folder's budget file in the editor (issue 30), over LSP on a program built with gcc -pg: the
C fixture (cproject, 400 rounds: `work` and `util_sum` called 400 times each) with a
`gmonlens-budgets.yaml` found by name, no setting: a routine's hover starts with its budget, the
lens of a routine over its budget ends with " · over budget", and an edit of the budget file
changes both without a reload of the profile."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from workspace_builds import build_workspace

from .lspclient import open_doc, position_of, session, uri, wait_status
from .test_lsp_features import lenses

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]

OVER = " · over budget"


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_workspace("cproject", tmp_path_factory.mktemp("budgets") / "cproject")


def write_budgets(ws: Path, work_max: int) -> None:
    (ws / "gmonlens-budgets.yaml").write_text(
        "binary: build/app\nprofiles: [build/gmon.out]\nrules:\n"
        f"  - {{calls: work, max: {work_max}}}\n"
        "  - {calls: util_sum, max: 399}\n"
    )


async def hover_text(client: Any, path: Path, needle: str) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri(path)), position_of(path, needle, offset=5))
    )
    return hover.contents.value if hover is not None else ""


async def titles_of(client: Any, path: Path, needle: str) -> list[str]:
    line = position_of(path, needle).line
    return (await lenses(client, path)).get(line, [])


async def until(check: Any, what: str, tries: int = 80) -> Any:
    for _ in range(tries):
        value = await check()
        if value:
            return value
        await asyncio.sleep(0.25)
    raise AssertionError(f"never: {what}")


async def test_hover_and_lenses_show_the_budgets_and_follow_the_file(ws: Path, tmp_path: Path) -> None:
    write_budgets(ws, 1200)
    main_c, util_c = ws / "src" / "main.c", ws / "src" / "util.c"
    async with session([ws], tmp_path / "cache") as client:
        status = await wait_status(client, ("loaded",))
        await open_doc(client, main_c)
        await open_doc(client, util_c)
        link = f"({(ws / 'gmonlens-budgets.yaml').as_uri()}#L4)"
        text = await until(lambda: hover_text(client, main_c, "long work(int n)"), "a hover on work")
        assert (
            f"**Budget**: calls 400 of 1,200 allowed · pass · [rule 1, gmonlens-budgets.yaml:4]{link}" in text
        )
        over = await hover_text(client, util_c, "long util_sum(int n)")
        assert "**Budget**: calls 400 of 399 allowed: over budget" in over, over
        sums = await until(
            lambda: _with(titles_of(client, util_c, "long util_sum(int n)"), OVER), "util_sum's lens marked"
        )
        assert len(sums) == 1 and sums[0].endswith(OVER), sums
        (work,) = await titles_of(client, main_c, "long work(int n)")
        assert OVER not in work, work

        loads = sum(1 for s in client.statuses if "loaded" in str(s))
        write_budgets(ws, 100)  # work now over its budget: the file is polled, the profile kept
        (work,) = await until(
            lambda: _with(titles_of(client, main_c, "long work(int n)"), OVER), "work's lens marked"
        )
        assert work.endswith(OVER), work
        text = await hover_text(client, main_c, "long work(int n)")
        assert "**Budget**: calls 400 of 100 allowed: over budget" in text, text
        assert sum(1 for s in client.statuses if "loaded" in str(s)) == loads, "the profile was loaded again"
        assert status is not None


async def _with(titles: Any, mark: str) -> list[str] | None:
    found: list[str] = await titles
    return found if any(mark in t for t in found) else None
