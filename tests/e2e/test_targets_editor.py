"""The editor on every target of issue 31, over LSP (pytest-lsp): the C fixture workspace built with
each Debian cross compiler, run under qemu-user, then moved away from where it was built (so the
sources are found through that target's DWARF and the server's mapping); lenses, hover, the call
hierarchy with its call-site lines, line heat and the disassembly listing (its call counts on the
target's call instructions) must all come out. Skipped per target where a toolchain is missing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from gmonlens.load.loader import load
from mcp_server.mcpclient import McpClient
from workspace_builds import FIXTURES

from .lspclient import open_doc, position_of, session, state_of, uri, wait_status

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]

# name -> (compiler, extra flags, qemu, sysroot)
TARGETS = {
    "armhf": ("arm-linux-gnueabihf-gcc", (), "qemu-arm", "/usr/arm-linux-gnueabihf"),
    "armel": ("arm-linux-gnueabi-gcc", (), "qemu-arm", "/usr/arm-linux-gnueabi"),
    "riscv64": ("riscv64-linux-gnu-gcc", (), "qemu-riscv64", "/usr/riscv64-linux-gnu"),
    "ppc64le": ("powerpc64le-linux-gnu-gcc", (), "qemu-ppc64le", "/usr/powerpc64le-linux-gnu"),
    "ppc64": ("powerpc64-linux-gnu-gcc", (), "qemu-ppc64", "/usr/powerpc64-linux-gnu"),
    "ppc32": ("powerpc-linux-gnu-gcc", (), "qemu-ppc", "/usr/powerpc-linux-gnu"),
    "s390x": ("s390x-linux-gnu-gcc", (), "qemu-s390x", "/usr/s390x-linux-gnu"),
    "mips64el": ("mips64el-linux-gnuabi64-gcc", (), "qemu-mips64el", "/usr/mips64el-linux-gnuabi64"),
    "mips": ("mips-linux-gnu-gcc", (), "qemu-mips", "/usr/mips-linux-gnu"),
}
ROUNDS = 30


def build_moved_cross(target: str, base: Path) -> Path:
    """The cproject fixture built for `target`, run once under qemu, moved to base/moved/."""
    cc, flags, qemu, sysroot = TARGETS[target]
    missing = [t for t in (cc, qemu) if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (Debian: gcc-<triplet>, qemu-user)")
    built = base / "built" / "cproject"
    shutil.copytree(FIXTURES / "cproject", built)
    (built / "build").mkdir()
    argv = [cc, "-g", "-pg", "-O0", *flags, "-Iinclude", "-o", "build/app", "src/main.c", "src/util.c"]
    subprocess.run(argv, cwd=built, check=True, capture_output=True, timeout=120)
    run = [qemu, "-L", sysroot, "./app", str(ROUNDS)]
    subprocess.run(run, cwd=built / "build", check=True, capture_output=True, timeout=300)
    moved = base / "moved" / "cproject"
    moved.parent.mkdir(parents=True)
    shutil.move(str(built), str(moved))
    return moved


async def _request(client: Any, method: str, params: dict[str, Any]) -> Any:
    return await client.protocol.send_request_async(method, params)


@pytest.mark.parametrize("target", list(TARGETS))
async def test_editor_on_target(target: str, tmp_path: Path) -> None:
    ws = build_moved_cross(target, tmp_path / "ws")
    main_c, util_c = ws / "src" / "main.c", ws / "src" / "util.c"
    dot = "." if target == "ppc64" else ""  # ELFv1: gprof's routines are BFD's `.name` entry points
    async with session([ws], tmp_path / "cache") as client:
        status = await wait_status(client)
        assert state_of(status) == "loaded", status
        u = await open_doc(client, main_c)
        doc = types.TextDocumentIdentifier(uri=u)
        # lenses: on work (called ROUNDS times), helper and main
        lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc))
        by_line = {lens.range.start.line: lens.command.title for lens in lenses or [] if lens.command}
        work_line = position_of(main_c, "long work").line
        assert work_line in by_line and f"· {ROUNDS} calls" in by_line[work_line], by_line
        # hover at the definition of work: its callers and callees
        hover = await client.text_document_hover_async(
            types.HoverParams(text_document=doc, position=position_of(main_c, "work(int n)", offset=1))
        )
        assert hover is not None and f"**{dot}work**" in hover.contents.value
        if not dot:  # (ELFv1: gprof's figures put .work in a cycle with what swallowed .helper)
            assert "util_sum" in hover.contents.value and f"{ROUNDS}/{ROUNDS}" in hover.contents.value
        # call hierarchy: util_sum is called from work, on the line of the call
        u2 = await open_doc(client, util_c)
        items = await client.text_document_prepare_call_hierarchy_async(
            types.CallHierarchyPrepareParams(
                text_document=types.TextDocumentIdentifier(uri=u2),
                position=position_of(util_c, "util_sum(int", offset=1),
            )
        )
        assert items and items[0].name == f"{dot}util_sum" and items[0].uri == uri(util_c)
        incoming = await client.call_hierarchy_incoming_calls_async(
            types.CallHierarchyIncomingCallsParams(item=items[0])
        )
        assert [c.from_.name for c in incoming] == [f"{dot}work"]
        assert [r.start.line for r in incoming[0].from_ranges] == [position_of(main_c, "util_sum(n)").line]
        # line heat: the sampled lines of the two sources (a short run under qemu samples a few)
        heat = [
            await _request(client, "gmonlens/lineHeat", {"textDocument": {"uri": uri(p)}})
            for p in (main_c, util_c)
        ]
        lines = [entry for h in heat for entry in h.lines]
        assert lines and all(entry.seconds > 0 and entry.routines for entry in lines), heat
        # the disassembly of work: its calls on call instructions, with gprof's counts
        pos = position_of(main_c, "long work", offset=5)
        listing = await _request(
            client,
            "gmonlens/disassembly",
            {
                "textDocument": {"uri": uri(main_c)},
                "position": {"line": pos.line, "character": pos.character},
            },
        )
        assert listing.displayName == f"{dot}work"
        calls = {c.callee: c.count for i in listing.instructions for c in i.calls}
        assert calls.get(f"{dot}util_sum") == ROUNDS, calls
        if not dot:  # (ELFv1: the static helper's `.helper` fails gprof's name filter: no routine)
            assert calls.get("helper") == ROUNDS, calls
    profile = load(str(ws / "build" / "app"), [str(ws / "build" / "gmon.out")]).profile
    work = profile.routine_named(f"{dot}work")
    assert work is not None and work.calls == ROUNDS
    # the MCP server's disassembly tool on the same folder (the same listing)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    with McpClient(
        [str(Path(sys.executable).parent / "gmonlens"), "mcp", "--workspace", str(ws)], env=env
    ) as c:
        c.initialize()
        out = c.call("disassembly", routine=f"{dot}work", limit=400)
        assert out["isError"] is False, out["content"][0]["text"]
        doc = out["structuredContent"]
        assert doc["routine"] == f"{dot}work"
        assert doc["self_seconds"] == pytest.approx(profile.seconds(work.self_ticks), abs=1e-6)
