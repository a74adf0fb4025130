"""One end-to-end test through a real editor: Debian's Neovim (0.7), headless, its built-in LSP
client asking gmonlens serve for lenses, hover and call hierarchy."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .lspclient import position_of

pytestmark = pytest.mark.e2e
SCRIPT = Path(__file__).resolve().parent / "neovim" / "check.lua"


def test_neovim_lenses_hover_call_hierarchy(cproject: Path, tmp_path: Path) -> None:
    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.skip("Neovim (nvim) is not installed")
    main_c = cproject / "src" / "main.c"
    pos = position_of(main_c, "work(int n)", offset=1)
    result = tmp_path / "result.json"
    env = {
        **os.environ,
        "GMONLENS_ROOT": str(cproject),
        "GMONLENS_PYTHON": sys.executable,
        "GMONLENS_RESULT": str(result),
        "GMONLENS_LINE": str(pos.line),
        "GMONLENS_CHAR": str(pos.character),
    }
    for var in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env[var] = str(tmp_path / var.lower())
    proc = subprocess.run(
        [nvim, "--headless", "--clean", "-u", "NONE", "-n", "-c", f"luafile {SCRIPT}", str(main_c)],
        env=env, capture_output=True, text=True, timeout=180, cwd=cproject,
    )  # fmt: skip
    seen = json.loads(result.read_text()) if result.exists() else {}
    assert proc.returncode == 0, (proc.returncode, seen, proc.stderr[-2000:])
    lines = {lens["line"]: lens["title"] for lens in seen["lenses"]}
    assert lines[pos.line].endswith("400 calls"), lines
    assert position_of(main_c, "int main").line in lines
    assert "**work**" in seen["hover"] and "400/400" in seen["hover"]
    assert seen["item"] == "work"
    assert seen["callers"] == [{"name": "main", "line": position_of(main_c, "result += work").line}]
    loop = position_of(main_c, "acc += (i * 7) % 13").line  # a hot line: the loop body of helper
    heat = {h["line"]: h for h in seen["heat"]}
    assert heat[loop]["routine"] == "helper" and heat[loop]["seconds"] > 0, seen["heat"]
    # the default label: "S s · P%", and " · few samples" after it on a short run
    hinted = [h["label"].removesuffix(" · few samples") for h in seen["hints"] if h["line"] == loop]
    assert any(label.endswith("%") for label in hinted), seen["hints"]
