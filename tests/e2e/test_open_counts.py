"""A cold load in the server reads the binary at most 3 times and each profile at most twice,
counting every process (the server and the cache warm-up it starts), with strace (issue 16:
one `gmonlens.load.program.Program` per load reads each file once; it was 16 and 5 on SQLite)."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest

from .rawlsp import RawServer, uri

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from server_opens import WARMED, opens

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed"),
]


@pytest.mark.parametrize("configured", [True, False], ids=["settings", "discovery"])
def test_cold_load_reads_each_file_once_per_process(cproject: Path, tmp_path: Path, configured: bool) -> None:
    binary, profile = cproject / "build" / "app", cproject / "build" / "gmon.out"
    trace, cache = tmp_path / "trace", tmp_path / "cache"
    serve = [sys.executable, "-m", "gmonlens_lsp", "serve", "--stdio"]
    cmd = ["strace", "-f", "-qq", "-e", "trace=openat,open", "-o", str(trace), *serve]
    settings = {"gmonlens": {"binary": str(binary), "profiles": [str(profile)]}} if configured else None
    with RawServer(cache, cmd=cmd) as server:
        server.initialize(cproject, init_options=settings)
        status = server.wait_state(timeout=60)
        assert status is not None and status["state"] == "loaded", status
        main_c = cproject / "src" / "main.c"
        doc = {"uri": uri(main_c), "languageId": "c", "version": 1, "text": main_c.read_text()}
        server.notify("textDocument/didOpen", {"textDocument": doc})
        lenses = server.request("textDocument/codeLens", {"textDocument": {"uri": uri(main_c)}}, timeout=30)
        assert lenses is not None and lenses.get("result"), lenses
        # the warm-up subprocess has filled the cache (its last entry is the scopes)
        assert server.wait_for(lambda: all(any(cache.glob(f"gmonlens/{k}")) for k in WARMED), timeout=120)
        time.sleep(0.5)
        assert server.shutdown_and_exit(timeout=20) == 0
    counts = opens(trace.read_text(errors="replace"), [str(binary), str(profile)])
    print(f"opens: {counts}")
    assert counts[str(binary)] <= 3 and counts[str(profile)] <= 2, counts
