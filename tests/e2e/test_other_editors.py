"""The README's "Other editors" configurations, run as written, headless, on a built C program:
Neovim 0.7 (its init.lua block as the init file) and Emacs 28 with eglot 1.9 (its init.el block).
Each block is taken from README.md by its first line, so the README cannot drift from what runs."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .lspclient import position_of

pytestmark = pytest.mark.e2e
HERE = Path(__file__).resolve().parent
README = HERE.parents[1] / "README.md"
VENV_BIN = Path(sys.executable).parent  # where `make install` put the gmonlens command


def readme_block(first_line: str) -> str:
    """The fenced code block of README.md whose first line is `first_line`."""
    for body in re.findall(r"```[a-z]*\n(.*?)```", README.read_text(), re.S):
        if body.startswith(first_line + "\n"):
            return body
    raise AssertionError(f"README.md has no code block starting with {first_line!r}")


def editor_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}", **extra}
    env["HOME"] = str(tmp_path / "home")
    for var in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env[var] = str(tmp_path / var.lower())
    (tmp_path / "home").mkdir(exist_ok=True)
    return env


@pytest.fixture()
def workspace(cproject: Path, tmp_path: Path) -> Path:
    """A copy of the built C fixture in a git repository (eglot's project root)."""
    ws = tmp_path / "ws"
    shutil.copytree(cproject, ws)
    git = shutil.which("git")
    if git is None:
        (ws / ".git").mkdir()  # what project.el looks for
    else:
        subprocess.run([git, "init", "-q", str(ws)], check=True, capture_output=True)
    return ws


def test_neovim_07_readme_config(workspace: Path, tmp_path: Path) -> None:
    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.skip("Neovim (nvim) is not installed")
    init = tmp_path / "init.lua"
    init.write_text(readme_block("-- gmonlens: Neovim 0.7 (init.lua)"))
    main_c = workspace / "src" / "main.c"
    pos = position_of(main_c, "work(int n)", offset=1)
    result = tmp_path / "result.json"
    env = editor_env(
        tmp_path,
        GMONLENS_RESULT=str(result),
        GMONLENS_LINE=str(pos.line),
        GMONLENS_CHAR=str(pos.character),
    )
    script = HERE / "neovim" / "config_check.lua"
    trust = f"let g:gmonlens_trusted = ['{workspace}']"  # before init.lua: the folders the user trusts
    proc = subprocess.run(
        [nvim, "--headless", "-n", "--cmd", trust, "-u", str(init), "-c", f"luafile {script}", "src/main.c"],
        env=env, capture_output=True, text=True, timeout=240, cwd=workspace,
    )  # fmt: skip
    seen = json.loads(result.read_text()) if result.exists() else {}
    assert proc.returncode == 0, (proc.returncode, seen, proc.stderr[-2000:])
    lenses = {lens["line"]: lens["title"] for lens in seen["lenses"]}
    assert lenses[pos.line].endswith("400 calls"), lenses
    assert position_of(main_c, "static long helper").line in lenses
    assert "**work**" in seen["hover"] and "400/400" in seen["hover"]
    # the lens "click": callers in the quickfix list, on the line of the call
    call_line = position_of(main_c, "result += work").line
    assert seen["quickfix"] == [{"lnum": call_line + 1, "text": "main"}], seen["quickfix"]
    assert seen["lenses_after_click"] >= len(lenses)
    # :GmonlensDisasm: work's listing, read-only, with its call to helper and gprof's count
    assert seen["disasm"].startswith("work (") and "# helper: 400 calls" in seen["disasm"], seen["disasm"][
        :500
    ]
    assert seen["disasm_modifiable"] is False
    # :GmonlensRecord ./build/app 300: recorded, loaded, and the lens shows the new run's calls
    assert any("loaded" in m for m in seen["record_messages"]), seen["record_messages"]
    assert (workspace / "gmonlens-record" / "record.json").is_file()
    assert seen["lens_after_record"].endswith("300 calls"), seen["lens_after_record"]


def test_emacs_eglot_readme_config(workspace: Path, tmp_path: Path) -> None:
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip("Emacs is not installed (Debian: emacs-nox elpa-eglot)")
    probe = subprocess.run(
        [emacs, "--batch", "--eval", '(princ (if (locate-library "eglot") "yes" "no"))'],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    if probe.stdout.strip() != "yes":
        pytest.skip("eglot is not installed (Debian: elpa-eglot)")
    init = tmp_path / "init.el"
    init.write_text(readme_block(";; gmonlens: Emacs 28 with eglot 1.9 (init.el)"))
    result = tmp_path / "result.json"
    env = editor_env(tmp_path, GMONLENS_RESULT=str(result), GMONLENS_FILE="src/main.c")
    proc = subprocess.run(
        [emacs, "--batch", "-l", str(init), "-l", str(HERE / "emacs" / "check.el")],
        env=env, capture_output=True, text=True, timeout=240, cwd=workspace,
    )  # fmt: skip
    assert proc.returncode == 0 and result.exists(), proc.stderr[-3000:]
    seen = json.loads(result.read_text())
    main_c = workspace / "src" / "main.c"
    lenses = {lens["line"] - 1: lens["title"].rstrip("\n") for lens in seen["lenses"]}
    work = position_of(main_c, "work(int n)", offset=1)
    assert lenses[work.line].endswith("400 calls"), lenses
    assert position_of(main_c, "static long helper").line in lenses
    assert "**work**" in seen["hover"] and "400/400" in seen["hover"]
    assert seen["eldoc"] and "400/400" in seen["eldoc"]  # what eldoc displays
    assert any("work" in s for s in seen["apropos"]), seen["apropos"]
    # M-x gmonlens-disasm: work's listing, with its call to helper and gprof's count
    assert seen["disasm"].startswith("work (") and "# helper: 400 calls" in seen["disasm"], seen["disasm"][
        :500
    ]
    # M-x gmonlens-record ./build/app 300: recorded, loaded, and the lens shows the new run's calls
    assert seen["record"]["usable"] is True, seen["record"]
    assert seen["record"]["out_dir"] == str((workspace / "gmonlens-record").resolve())
    assert (seen["lens_after_record"] or "").rstrip("\n").endswith("300 calls"), seen["lens_after_record"]
