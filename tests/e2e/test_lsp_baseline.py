"""Baselines over LSP: pin the current profile, rerun with more work, see the change in lenses,
hover, status and gmonlens.changes; clear it; a baseline from gmonlens.yaml."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types

from .lspclient import open_doc, position_of, session, uri, wait_status
from .test_lsp_features import lenses
from .workspaces import build_moved

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]


def _baseline(status: object) -> object:
    return status.get("baseline") if isinstance(status, dict) else getattr(status, "baseline", None)


async def wait_baseline(client: object, after: int, present: bool = True, changed: bool = False) -> object:
    """The first `loaded` status from index `after` with (or without) baseline fields (with
    `changed`: whose total differs from the baseline's, i.e. the rerun's profile)."""
    while True:
        status = await wait_status(client, ("loaded",), after=after)  # type: ignore[arg-type]
        after = client.statuses.index(status) + 1  # type: ignore[attr-defined]
        b = _baseline(status)
        if (b is not None) == present and not (changed and field(b, "totalAfter") == field(b, "totalBefore")):
            return status


def field(obj: object, key: str) -> object:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key)


async def test_pin_rerun_changes_clear(tmp_path: Path) -> None:
    ws = build_moved("cproject", tmp_path / "ws")
    before_files = sorted(p.relative_to(ws) for p in ws.rglob("*"))
    cache = tmp_path / "cache"
    util_c = ws / "src" / "util.c"
    async with session([ws], cache) as client:
        await wait_status(client, ("loaded",))
        n = len(client.statuses)
        pinned = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="gmonlens.pinBaseline", arguments=[uri(ws)])
        )
        # kept in the data folder (HOME is `cache` here: ~/.local/share), not in the cache
        data = cache / ".local" / "share" / "gmonlens" / "baselines"
        assert len(pinned) == 1 and str(data) in pinned[0]["binary"], pinned
        status = await wait_baseline(client, n)
        b = _baseline(status)
        assert field(b, "verdict") == "noise" and field(b, "regressions") == 0, b
        got = await lenses(client, util_c)
        titles = [t for ts in got.values() for t in ts]
        assert titles and all(" · ≈ +0.00 s" in t for t in titles), titles
        # rerun with three times the work: the profile changes, the baseline (a copy) does not
        n = len(client.statuses)
        subprocess.run([str(ws / "build" / "app"), "1200"], cwd=ws / "build", check=True, capture_output=True)
        status = await wait_baseline(client, n, changed=True)
        b = _baseline(status)
        assert field(b, "verdict") == "up" and field(b, "regressions") >= 1, b
        assert float(field(b, "totalAfter")) > float(field(b, "totalBefore"))  # type: ignore[arg-type]
        got = await lenses(client, util_c)
        helper_line = position_of(util_c, "helper").line
        assert any("▲ +" in t and "%)" in t for t in got[helper_line]), got
        changes = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="gmonlens.changes", arguments=[])
        )
        assert changes[0]["kind"] == "regression" and changes[0]["name"] == "helper", changes
        assert changes[0]["uri"] == uri(util_c) and changes[0]["line"] == helper_line
        regressions = [c for c in changes if c["kind"] == "regression"]
        by_self = [c["selfDelta"] for c in regressions if "total" not in c["change"]]
        by_total = [c["totalDelta"] for c in regressions if "total" in c["change"]]
        assert regressions == changes[: len(regressions)]
        assert by_self == sorted(by_self, reverse=True) and by_total == sorted(by_total, reverse=True)
        assert [c["change"] for c in regressions] == sorted(
            (c["change"] for c in regressions), key=lambda t: "total" in t
        )
        u = await open_doc(client, util_c)
        pos = position_of(util_c, "helper")
        hover = await client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=u), position=pos)
        )
        assert hover is not None and "Against the baseline" in hover.contents.value
        assert "| self s |" in hover.contents.value and "| calls | 800 | 2400 |" in hover.contents.value
        assert "| caller util_sum | 800 | 2400 | +1600 |" in hover.contents.value, hover.contents.value
        n = len(client.statuses)
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="gmonlens.clearBaseline", arguments=[uri(ws)])
        )
        await wait_baseline(client, n, present=False)
        got = await lenses(client, util_c)
        assert not any("▲" in t or "≈" in t for ts in got.values() for t in ts), got
    data = cache / ".local" / "share" / "gmonlens" / "baselines"
    assert not any(p.name.startswith("pin-") for p in data.rglob("*")), list(data.rglob("*"))
    after_files = sorted(p.relative_to(ws) for p in ws.rglob("*"))
    assert after_files == before_files  # nothing written into the user's folder


async def test_baseline_from_config_file(tmp_path: Path) -> None:
    ws = build_moved("cproject", tmp_path / "ws")
    shutil.copy(ws / "build" / "gmon.out", ws / "base.gmon")
    (ws / "gmonlens.yaml").write_text("baseline:\n  profiles: [base.gmon]\n  binary: build/app\n")
    async with session([ws], tmp_path / "cache") as client:
        status = await wait_baseline(client, 0)
        assert field(_baseline(status), "label") == "base.gmon"
        changes = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="gmonlens.changes", arguments=[uri(ws)])
        )
        assert changes == []  # the same run: nothing beyond noise
