"""What a warm hover walks through: the modules of ours it calls into and the module-to-module steps.

Builds the test workspace `cproject` (gcc -pg, at most once, under bench/work/), loads it into a
language server made by the factory (no client: the handler is called directly, as
tests/server/test_heat_requests.py does), asks a hover on a routine's name twice, and traces the
second (warm) one with `sys.setprofile`: every Python call whose module is one of ours
(`gmonlens*`) counts its module; a step is a call from one of our modules into another.
Also counts how often the folder is looked up (`GmonlensServer.folder_of`) and the word under the
cursor read (`word_at`).

Usage: `.venv/bin/python bench/hover_path.py` (from a checkout of any layout since issue 26).
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from lsprotocol import types  # noqa: E402
from pygls.workspace import Workspace  # noqa: E402

from workspace_builds import build_workspace  # noqa: E402


def _imports() -> tuple[Any, Any, Any, Any]:
    try:
        from gmonlens_ide.session import FolderState, load_folder
        from gmonlens_ide.settings import Settings
    except ImportError:  # the layout before the editor-neutral layer
        from gmonlens_lsp.workspace.session import FolderState, load_folder  # type: ignore[no-redef]
        from gmonlens_lsp.workspace.settings import Settings  # type: ignore[no-redef]
    from gmonlens_lsp.factory import create_server

    return FolderState, load_folder, Settings, create_server


def main() -> int:
    folder_state, load_folder, settings, create_server = _imports()
    ws = build_workspace("cproject", ROOT / "bench" / "work" / "hover" / "cproject")
    server = create_server()
    uri = ws.as_uri()
    proto = server.protocol
    proto._workspace = Workspace(uri, workspace_folders=[types.WorkspaceFolder(uri, ws.name)])
    state = folder_state(uri=uri, path=str(ws))
    server.folders[uri] = state
    outcome = load_folder(str(ws), settings(), 1)
    state.generation, state.loaded = 1, outcome.loaded
    src = ws / "src" / "main.c"
    lines = src.read_text().splitlines()
    line = next(i for i, t in enumerate(lines) if "work (" in t or "work(" in t)
    params = types.HoverParams(
        types.TextDocumentIdentifier(src.as_uri()), types.Position(line, lines[line].index("work") + 1)
    )
    handler = proto.fm.features[types.TEXT_DOCUMENT_HOVER]
    asyncio.run(handler(params))  # cold: places decoded, certainty maybe pending
    modules: Counter[str] = Counter()
    steps: Counter[tuple[str, str]] = Counter()
    calls: Counter[str] = Counter()

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        mod = frame.f_globals.get("__name__", "")
        if not mod.startswith("gmonlens"):
            return
        modules[mod] += 1
        name = frame.f_code.co_name
        if name in ("folder_of", "word_at", "loaded_for"):
            calls[name] += 1
        back = frame.f_back
        caller = back.f_globals.get("__name__", "") if back is not None else ""
        if caller.startswith("gmonlens") and caller != mod:
            steps[(caller, mod)] += 1

    import threading

    threading.setprofile(profile)  # the hover's work runs in asyncio.to_thread
    sys.setprofile(profile)
    result = asyncio.run(handler(params))
    sys.setprofile(None)
    threading.setprofile(None)  # type: ignore[arg-type]
    assert result is not None, "no hover"
    print(f"warm hover on `work` in {src.name}: {len(modules)} modules of ours, {sum(steps.values())} "
          f"module-to-module steps ({len(steps)} distinct); folder looked up {calls['folder_of']} times, "
          f"word read {calls['word_at']} times")  # fmt: skip
    for mod, n in sorted(modules.items()):
        print(f"  {mod}: {n} calls")
    return 0


if __name__ == "__main__":
    sys.exit(main())
