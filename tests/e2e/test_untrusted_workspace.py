"""Opening a workspace runs nothing from it: modules and a `c++filt` planted in the workspace are
never imported or run, by the server or by the processes it starts (the cache warm-up), whether the
server was started as `python -m gmonlens_lsp`, `gmonlens serve` or from the VS Code extension's
bundle layout (python/launch.py). Each planted file writes a marker when it runs."""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from .rawlsp import RawServer, server_env, uri
from .workspaces import build_moved

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
MODULES = ("hashlib", "yaml", "elftools", "gmonlens", "pygls", "lsprotocol", "marshal", "capstone", "cattrs")


@pytest.fixture(scope="module")
def cpp_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_moved("cppproject", tmp_path_factory.mktemp("untrusted"))


def plant(ws: Path, markers: Path, *, package: bool = False) -> None:
    """Modules (and, with `package`, `gmonlens_lsp/`, `gmonlens_ide/` and `gmonlens_cli/` packages) and an executable `c++filt` in the
    workspace root and its build folder, each writing markers/NAME when it runs."""
    markers.mkdir(exist_ok=True)
    for where in (ws, ws / "build"):
        for name in MODULES:
            code = f"open({str(markers / name)!r}, 'w').write({str(where)!r})\n"
            (where / f"{name}.py").write_text(code)
        for name in ("gmonlens_lsp", "gmonlens_ide", "gmonlens_cli") if package else ():
            pkg = where / name
            pkg.mkdir(exist_ok=True)
            (pkg / "__init__.py").write_text(f"open({str(markers / name)!r}, 'w').write('x')\n")
            (pkg / "warm.py").write_text(f"open({str(markers / 'warm')!r}, 'w').write('x')\n")
        tool = where / "c++filt"
        tool.write_text(f"#!/bin/sh\necho ran > {markers / 'c++filt'}\ncat\n")
        tool.chmod(tool.stat().st_mode | stat.S_IXUSR)


def run_session(ws: Path, cache: Path, cmd: list[str], env: dict[str, str]) -> RawServer:
    """Load the workspace, ask for lenses, wait for the cache warm-up to write the profile entry."""
    server = RawServer(cache, cwd=ws, cmd=cmd, env=env)
    server.initialize(ws)
    status = server.wait_state()
    assert status is not None and status["state"] == "loaded", (status, server.stderr.decode()[-3000:])
    main = ws / "src" / "main.cpp"
    resp = server.request("textDocument/codeLens", {"textDocument": {"uri": uri(main)}}, timeout=30)
    assert resp is not None and resp.get("result"), resp
    # the warm-up (a subprocess) writes the computed profile into the cache
    warmed = server.wait_for(lambda: any("profile" in p.name for p in cache.rglob("*")), timeout=60)
    assert warmed, (sorted(p.name for p in cache.rglob("*")), server.stderr.decode()[-3000:])
    assert server.shutdown_and_exit() == 0
    return server


def unsafe_env(cache: Path, pythonpath: bool = True) -> dict[str, str]:
    """Relative PATH entries name the working directory (the workspace); so does PYTHONPATH=.
    (which an interpreter that is not isolated obeys before anything we can do: not for a console
    script)."""
    env = server_env(cache, PATH=f".:build::{os.environ.get('PATH', '/usr/bin:/bin')}")
    return {**env, "PYTHONPATH": "."} if pythonpath else env


def test_python_m_in_the_workspace_runs_nothing_from_it(cpp_ws: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(cpp_ws, ws)
    markers = tmp_path / "markers"
    plant(ws, markers)
    server = run_session(ws, tmp_path / "cache", [sys.executable, "-m", "gmonlens_lsp", "serve"],
                         unsafe_env(tmp_path / "cache"))  # fmt: skip
    assert sorted(os.listdir(markers)) == [], server.stderr.decode()[-2000:]
    assert b"Traceback" not in server.stderr, server.stderr.decode()[-3000:]


@pytest.mark.parametrize("how", ["console-script", "python-I"])
def test_server_command_runs_nothing_from_the_workspace(cpp_ws: Path, tmp_path: Path, how: str) -> None:
    exe = ROOT / ".venv" / "bin" / "gmonlens"
    if how == "console-script" and not exe.exists():
        pytest.skip(f"{exe} missing: run `make install`")
    ws = tmp_path / "ws"
    shutil.copytree(cpp_ws, ws)
    markers = tmp_path / "markers"
    plant(ws, markers, package=True)
    cmd = (
        [str(exe), "serve"]
        if how == "console-script"
        else [sys.executable, "-I", "-m", "gmonlens_lsp", "serve"]
    )
    env = unsafe_env(tmp_path / "cache", pythonpath=how == "python-I")
    server = run_session(ws, tmp_path / "cache", cmd, env)
    assert sorted(os.listdir(markers)) == [], server.stderr.decode()[-2000:]


def test_vsix_layout_warm_up_finds_the_bundle(cpp_ws: Path, tmp_path: Path) -> None:
    """The extension runs `python -I python/launch.py serve` with the packages in bundled/libs; the
    warm-up subprocess (isolated: no PYTHONPATH) must find them too, and nothing in the workspace."""
    base = Path(sys.base_prefix) / "bin" / "python3"
    if not base.exists():
        pytest.skip(f"no base interpreter at {base}")
    ext = tmp_path / "ext"
    (ext / "python").mkdir(parents=True)
    shutil.copy(ROOT / "vscode-extension" / "python" / "launch.py", ext / "python" / "launch.py")
    libs = ext / "bundled" / "libs"
    libs.mkdir(parents=True)
    os.symlink(ROOT / "analysis" / "gmonlens", libs / "gmonlens")
    for pkg in ("gmonlens_ide", "gmonlens_lsp", "gmonlens_mcp", "gmonlens_cli"):
        os.symlink(ROOT / "server" / pkg, libs / pkg)
    import attr
    import attrs
    import cattrs
    import elftools
    import lsprotocol
    import pygls
    import typing_extensions
    import yaml

    for mod in (attr, attrs, cattrs, elftools, lsprotocol, pygls, yaml, typing_extensions):
        src = Path(mod.__file__ or "")
        src = src.parent if src.name == "__init__.py" else src
        os.symlink(src, libs / src.name)
    ws = tmp_path / "ws"
    shutil.copytree(cpp_ws, ws)
    markers = tmp_path / "markers"
    plant(ws, markers, package=True)
    cmd = [str(base), "-I", str(ext / "python" / "launch.py"), "serve", "--stdio"]
    server = run_session(ws, tmp_path / "cache", cmd, unsafe_env(tmp_path / "cache"))
    assert sorted(os.listdir(markers)) == [], server.stderr.decode()[-2000:]
    assert b"ModuleNotFoundError" not in server.stderr, server.stderr.decode()[-3000:]
