"""End to end over LSP: reload on a new profile, problems said once, settings, gmonlens.yaml,
several workspace folders, the static call graph."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from lsprotocol import types

from .lspclient import open_doc, position_of, session, state_of, uri, wait_status

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]


async def lens_titles(client, path: Path) -> list[str]:
    u = await open_doc(client, path)
    result = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=u))
    )
    return [lens.command.title for lens in result or []]


async def test_reload_when_profile_rewritten(cproject: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(cproject, ws)
    async with session([ws], tmp_path / "cache") as client:
        assert state_of(await wait_status(client)) == "loaded"
        main_c = ws / "src" / "main.c"
        assert any(t.endswith("400 calls") for t in await lens_titles(client, main_c))
        before = len(client.statuses)
        refreshes = client.refreshes
        # a new run writes a new gmon.out (the program writes it at exit)
        subprocess.run(["./app", "150"], cwd=ws / "build", check=True, capture_output=True)
        # the reload is awaited as an event (generous timeout); how fast it comes is bench/'s business
        status = await wait_status(client, ("loaded",), after=before, timeout=60)
        assert state_of(status) == "loaded"
        titles = await lens_titles(client, main_c)
        assert any(t.endswith("150 calls") for t in titles), titles
        for _ in range(50):
            if client.refreshes > refreshes:
                break
            await asyncio.sleep(0.05)
        assert client.refreshes > refreshes  # workspace/codeLens/refresh was sent
        assert any(p for p in client.progress_reports.values())  # work-done progress while loading


async def test_first_load_is_not_followed_by_a_reload(cproject: Path, tmp_path: Path) -> None:
    """The poller must not take the first load's own inputs (binary, profile), unknown before it,
    for a change: that reload replaced the profile just loaded (lenses decoded again: the second
    lens request on SQLite took ~1 s instead of ~20 ms)."""
    ws = tmp_path / "ws"
    shutil.copytree(cproject, ws)
    async with session([ws], tmp_path / "cache") as client:
        assert state_of(await wait_status(client)) == "loaded"
        after = len(client.statuses)
        await asyncio.sleep(2.0)  # several polls (0.25 s) and a debounce (0.2 s)
        assert [state_of(s) for s in client.statuses[after:]] == []


async def test_file_watchers_registered_and_events_reload(cproject: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(cproject, ws)
    async with session([ws], tmp_path / "cache") as client:
        assert state_of(await wait_status(client)) == "loaded"
        watched = [r for r in client.registrations if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
        assert watched, client.registrations
        patterns = {w["globPattern"] for w in watched[0].register_options["watchers"]}
        assert {"**/gmon.out", "**/gmon.out.*", "**/gmon.sum", "**/gmonlens.yaml"} <= patterns
        before = len(client.statuses)
        subprocess.run(["./app", "120"], cwd=ws / "build", check=True, capture_output=True)
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(uri=uri(ws / "build" / "gmon.out"), type=types.FileChangeType.Changed)
                ]
            )
        )
        await wait_status(client, ("loaded",), after=before, timeout=30)
        assert any(t.endswith("120 calls") for t in await lens_titles(client, ws / "src" / "main.c"))


async def test_stale_binary_and_newer_source_are_logged(cproject: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(cproject, ws)
    now = time.time()
    os.utime(ws / "build" / "gmon.out", (now - 100, now - 100))
    os.utime(ws / "build" / "app", (now - 50, now - 50))  # rebuilt after the run
    os.utime(ws / "src" / "util.c", (now, now))  # edited after the build
    async with session([ws], tmp_path / "cache") as client:
        assert state_of(await wait_status(client)) == "loaded"
        deadline = time.monotonic() + 60
        wanted = ("is newer than this profile", "source file is newer than the binary")
        while time.monotonic() < deadline:
            logged = " ".join(m.message for m in client.log_messages)
            if all(w in logged for w in wanted):
                break
            await asyncio.sleep(0.1)
        assert "util.c: source file is newer than the binary" in logged, logged
        assert "the binary" in logged and "is newer than this profile" in logged, logged
        shown = [m.message for m in client.messages]
        assert not any("newer" in m for m in shown), shown  # not blocking: logged only


async def test_missing_and_broken_profile(cproject: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(cproject, ws)
    (ws / "build" / "gmon.out").unlink()
    async with session([ws], tmp_path / "cache") as client:
        status = await wait_status(client)
        assert state_of(status) in ("idle", "problem")
        assert any("no gmon.out" in m.message for m in client.messages), client.messages
        main_c = ws / "src" / "main.c"
        assert await lens_titles(client, main_c) == []
        u = await open_doc(client, main_c)
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=u), position=position_of(main_c, "work(")
            )
        )
        assert hover is None
        symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))
        assert not symbols
        # a broken profile: the CLI's words, said once
        (ws / "build" / "gmon.out").write_bytes(b"gmon\x01\x00\x00\x00" + b"\x00" * 12 + b"\x00\x07junk")
        cli = subprocess.run(
            [shutil.which("gmonlens") or str(Path(__file__).parents[2] / ".venv/bin/gmonlens"), "report",
             str(ws / "build" / "app"), str(ws / "build" / "gmon.out")],
            capture_output=True, text=True,
        )  # fmt: skip
        cli_words = cli.stderr.strip().splitlines()[-1].removeprefix("gmonlens: ")
        before = len(client.statuses)
        await client.workspace_execute_command_async(types.ExecuteCommandParams(command="gmonlens.reload"))
        status = await wait_status(client, ("problem", "idle"), after=before)
        assert any(cli_words in m.message for m in client.messages), (cli_words, client.messages)
        shown = len(client.messages)
        await client.workspace_execute_command_async(types.ExecuteCommandParams(command="gmonlens.reload"))
        await wait_status(client, ("problem", "idle"), after=len(client.statuses) - 1)
        await asyncio.sleep(0.3)
        assert len(client.messages) == shown  # said once
        assert await lens_titles(client, main_c) == []


async def test_settings_from_client_and_bad_values(cproject: Path, tmp_path: Path) -> None:
    options = {
        "gmonlens": {"lensTitle": "{name}: {calls} calls, {percent}%", "staticCallGraph": "yes", "colour": 1}
    }
    async with session([cproject], tmp_path / "cache", init_options=options) as client:
        assert state_of(await wait_status(client)) == "loaded"
        titles = await lens_titles(client, cproject / "src" / "main.c")
        assert "work: 400 calls, " in " ".join(titles), titles
        logged = " ".join(m.message for m in client.log_messages)
        assert "`staticCallGraph` must be true or false" in logged
        assert "unknown setting `colour`" in logged


async def test_yaml_config_static_call_graph_and_source_map(cproject: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(cproject, ws)
    (ws / "artifacts" / "x").mkdir(parents=True)
    shutil.move(str(ws / "build" / "app"), ws / "artifacts" / "x" / "app")
    shutil.move(str(ws / "build" / "gmon.out"), ws / "artifacts" / "x" / "gmon.out.1")
    # the sources also moved: src/ -> code/ (the suffix match alone would still find them by name;
    # source_map states it)
    shutil.move(str(ws / "src"), ws / "code")
    built_root = str(cproject).replace("/moved/", "/built/")
    (ws / "gmonlens.yaml").write_text(
        "binary: artifacts/x/app\n"
        "profiles: ['artifacts/x/gmon.out.*']\n"
        "static_call_graph: true\n"
        f"source_map:\n  {built_root}/src: code\n"
    )
    async with session([ws], tmp_path / "cache") as client:
        assert state_of(await wait_status(client)) == "loaded"
        main_c = ws / "code" / "main.c"
        titles = await lens_titles(client, main_c)
        assert len(titles) == 3, titles
        u = await open_doc(client, main_c)
        items = await client.text_document_prepare_call_hierarchy_async(
            types.CallHierarchyPrepareParams(
                text_document=types.TextDocumentIdentifier(uri=u),
                position=position_of(main_c, "int main", offset=5),
            )
        )
        assert items and items[0].uri == uri(main_c)
        outgoing = await client.call_hierarchy_outgoing_calls_async(
            types.CallHierarchyOutgoingCallsParams(item=items[0])
        )
        usage = [c for c in outgoing if c.to.name == "util_usage"]
        assert usage and "static" in (usage[0].to.detail or ""), [(c.to.name, c.to.detail) for c in outgoing]
        assert usage[0].to.uri == uri(ws / "code" / "util.c")


async def test_two_workspace_folders(cproject: Path, cppproject: Path, tmp_path: Path) -> None:
    async with session([cproject, cppproject], tmp_path / "cache") as client:
        await wait_status(client)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            loaded = {s.folder for s in client.statuses if s.state == "loaded"}
            if loaded >= {uri(cproject), uri(cppproject)}:
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError(client.statuses)
        assert await lens_titles(client, cproject / "src" / "util.c")
        assert await lens_titles(client, cppproject / "src" / "shapes.cpp")
        hottest = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="gmonlens.hottest", arguments=["total", 100])
        )
        files = {h["uri"].rsplit("/", 1)[-1] for h in hottest if h["uri"]}
        assert {"main.c", "shapes.cpp"} <= files, files


async def test_folder_added_later(cproject: Path, cppproject: Path, tmp_path: Path) -> None:
    async with session([cproject], tmp_path / "cache") as client:
        assert state_of(await wait_status(client)) == "loaded"
        client.workspace_did_change_workspace_folders(
            types.DidChangeWorkspaceFoldersParams(
                event=types.WorkspaceFoldersChangeEvent(
                    added=[types.WorkspaceFolder(uri=uri(cppproject), name="cpp")], removed=[]
                )
            )
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if any(s.folder == uri(cppproject) and s.state == "loaded" for s in client.statuses):
                break
            await asyncio.sleep(0.1)
        assert await lens_titles(client, cppproject / "src" / "shapes.cpp")


async def test_configuration_per_folder(cproject: Path, cppproject: Path, tmp_path: Path) -> None:
    async with session(
        [cproject, cppproject],
        tmp_path / "cache",
        configuration={"lensTitle": "G {name}"},
        folder_configuration={cppproject: {"lensTitle": "C {name} {calls}"}},
    ) as client:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if len({s.folder for s in client.statuses if s.state == "loaded"}) == 2:
                break
            await asyncio.sleep(0.1)
        c_titles = await lens_titles(client, cproject / "src" / "main.c")
        cpp_titles = await lens_titles(client, cppproject / "src" / "shapes.cpp")
        assert c_titles and all(t.startswith("G ") for t in c_titles), c_titles
        assert cpp_titles and all(t.startswith("C geo::") for t in cpp_titles), cpp_titles


async def test_unknown_request_gets_an_error(cproject: Path, tmp_path: Path) -> None:
    async with session([cproject], tmp_path / "cache") as client:
        await wait_status(client)
        with pytest.raises(Exception, match=r"(?i)method not found|unknown method"):
            await client.protocol.send_request_async("gmonlens/noSuchRequest", {})


async def test_profile_health_in_status_and_said_once(cproject: Path, tmp_path: Path) -> None:
    """The C workspace's profile has under 100 samples: gmonlens/status carries `few_samples` with its
    fix, and one window/showMessage says it, not again when the profile reloads with the same
    health."""
    ws = tmp_path / "ws"
    shutil.copytree(cproject, ws)
    async with session([ws], tmp_path / "cache") as client:
        status = await wait_status(client)
        assert state_of(status) == "loaded"
        health = status["health"] if isinstance(status, dict) else status.health
        codes = [h["code"] if isinstance(h, dict) else h.code for h in health]
        assert "few_samples" in codes, health
        for _ in range(50):
            shown = [m.message for m in client.messages if m.message.startswith("Profile health:")]
            if shown:
                break
            await asyncio.sleep(0.05)
        assert len(shown) == 1 and "Fix: run longer, or run several times" in shown[0], shown
        before = len(client.statuses)
        subprocess.run(["./app", "150"], cwd=ws / "build", check=True, capture_output=True)
        await wait_status(client, ("loaded",), after=before, timeout=60)
        await asyncio.sleep(0.5)
        again = [m.message for m in client.messages if m.message.startswith("Profile health:")]
        assert len(again) == 1 or again[1] != again[0], again  # said again only if it changed
