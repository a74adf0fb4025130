"""The .vsix for this machine's platform carries capstone: `make -C vscode-extension vsix` is
packaged, unpacked, and its bundled server (python/launch.py, as the extension starts it) is run by
a Python that has no capstone of its own (a fresh venv without it, isolated `-I`), from a workspace
holding a planted `capstone.py` and a bogus `libcapstone.so` with LIBCAPSTONE_PATH pointing there:

- `gmonlens disasm --json` and `gmonlens report -b -c` through the bundle print what the repository's
  gmonlens prints (its figures are held against gprof by tests/integration/test_disasm.py and
  test_static_calls.py); the `gmonlens/disassembly` request answers a listing whose instructions add
  up to the routine's self time, and the server has the bundled libcapstone mapped (Linux); the
  MCP server (`gmonlens mcp`, offered to VS Code's agent through the same launcher) lists too;
- nothing of the workspace is imported or loaded;
- a bundled library that does not load (replaced by garbage) and the platform-neutral package (no
  bundled/native) both give the one-line "no capstone" message, not a traceback.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from gmonlens.load.loader import load
from mcp_server.mcpclient import McpClient
from routine_keys import named

from .rawlsp import RawServer, server_env

pytestmark = [pytest.mark.e2e, pytest.mark.integration]
ROOT = Path(__file__).resolve().parents[2]
EXT = ROOT / "vscode-extension"
STATIC_CALLS = ROOT / "tests" / "integration" / "static_programs" / "static_calls.c"
CAPSTONE_LIBRARY = {"darwin": "libcapstone.dylib", "win32": "capstone.dll"}.get(
    sys.platform, "libcapstone.so"
)


def _make(*args: str) -> str:
    done = subprocess.run(["make", "-s", "-C", str(EXT), *args], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    return done.stdout


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The host platform's .vsix, built by `make vsix` and unpacked: (extension folder, target)."""
    for tool in ("node", "npm", "make"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not found: the .vsix cannot be packaged")
    name = _make("host-vsix").strip()
    target = subprocess.run(
        ["node", str(EXT / "scripts" / "host-target.mjs")], capture_output=True, text=True
    )
    if name == "" or f"-{target.stdout.strip()}-" not in name:
        pytest.skip(f"no platform package for {target.stdout.strip()} (capstone has no wheel for it)")
    _make("vsix")
    vsix = EXT / name
    assert vsix.stat().st_size < 10 * 1024 * 1024
    out = tmp_path_factory.mktemp("vsix")
    with zipfile.ZipFile(vsix) as z:
        z.extractall(out)
    manifest = (out / "extension.vsixmanifest").read_text()
    assert f'TargetPlatform="{target.stdout.strip()}"' in manifest
    assert not (EXT / "bundled" / "native").exists()  # emptied after packing: the next build starts clean
    return out / "extension", target.stdout.strip()


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv of the base interpreter, without pip or capstone."""
    venv = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    probe = subprocess.run([str(python), "-I", "-c", "import capstone"], capture_output=True, text=True)
    assert probe.returncode != 0 and "No module named 'capstone'" in probe.stderr, probe
    return python


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """static_calls.c built with -pg and run; a capstone.py and a bogus libcapstone.so planted."""
    ws = tmp_path_factory.mktemp("ws")
    subprocess.run(["gcc", "-pg", "-g", "-o", "sc", str(STATIC_CALLS)], cwd=ws, check=True)
    subprocess.run(["./sc", "20000000"], cwd=ws, check=True, capture_output=True)
    (ws / "capstone.py").write_text(f"open({str(ws / 'imported')!r}, 'w').write('x')\n")
    (ws / CAPSTONE_LIBRARY).write_bytes(b"not a library\n")
    return ws


def run_bundle(
    ext: Path, python: Path, ws: Path, *args: str, cache: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The bundle's CLI as the extension would start it, in the workspace, with hostile variables
    (`cache`: XDG_CACHE_HOME; static arcs and line tables are cached across runs there)."""
    env = server_env(cache or ws / "cache", LIBCAPSTONE_PATH=str(ws), PYTHONPATH=str(ws))
    cmd = [str(python), "-I", str(ext / "python" / "launch.py"), *args]
    return subprocess.run(cmd, cwd=ws, env=env, capture_output=True, text=True, timeout=300)


def repository_gmonlens(ws: Path, *args: str) -> str:
    pytest.importorskip("capstone")
    cmd = [sys.executable, "-I", "-m", "gmonlens_cli", *args]
    return subprocess.run(cmd, cwd=ws, check=True, capture_output=True, text=True, timeout=300).stdout


def test_platform_vsix_carries_capstone(unpacked: tuple[Path, str]) -> None:
    ext, _target = unpacked
    assert (ext / "bundled" / "native" / "capstone" / "lib" / CAPSTONE_LIBRARY).is_file()
    assert (ext / "bundled" / "native" / "capstone-5.0.9.dist-info" / "LICENSE.TXT").is_file()
    assert not (ext / "bundled" / "native" / "capstone" / "include").exists()
    assert not (ext / "bundled" / "libs" / "capstone").exists()  # only in the platform's folder


def test_bundled_disasm_and_static_call_graph(
    unpacked: tuple[Path, str], bare_python: Path, workspace: Path
) -> None:
    ext, _target = unpacked
    got = run_bundle(ext, bare_python, workspace, "disasm", "--json", "burn", "sc", "gmon.out")
    assert got.returncode == 0 and got.stderr == "", got.stderr[-3000:]
    listing = json.loads(got.stdout)
    assert listing == json.loads(repository_gmonlens(workspace, "disasm", "--json", "burn", "sc", "gmon.out"))
    instructions = listing[0]["instructions"] if isinstance(listing, list) else listing["instructions"]
    assert len(instructions) > 5 and sum(i["samples"] for i in instructions) > 0
    assert any(i["text"].startswith("ret") for i in instructions)

    with_c = run_bundle(ext, bare_python, workspace, "report", "-b", "-c", "sc", "gmon.out")
    assert with_c.returncode == 0 and with_c.stderr == "", with_c.stderr[-3000:]
    assert with_c.stdout == repository_gmonlens(workspace, "report", "-b", "-c", "sc", "gmon.out")
    without = run_bundle(ext, bare_python, workspace, "report", "-b", "sc", "gmon.out").stdout
    # `never` is never called: its arcs to helper and after exist only as -c's static arcs
    assert "never" in with_c.stdout and "never" not in without
    gprof = subprocess.run(
        ["gprof", "-b", "-c", "sc", "gmon.out"], cwd=workspace, capture_output=True, text=True
    )
    static = [
        line.split()[-2]
        for line in gprof.stdout.splitlines()
        if " 0/" in line and line.split()[-1].startswith("[")
    ]
    assert static, gprof.stdout[-2000:]  # gprof's -c count-0 arcs are gmonlens's too
    assert all(name in with_c.stdout for name in static)
    assert not (workspace / "imported").exists()


def test_bundled_server_lists_with_its_own_library(
    unpacked: tuple[Path, str], bare_python: Path, workspace: Path, cproject: Path, tmp_path: Path
) -> None:
    ext, _target = unpacked
    profile = load(str(cproject / "build" / "app"), [str(cproject / "build" / "gmon.out")]).profile
    work = named(profile.routines)["work"]
    env = server_env(tmp_path / "cache", LIBCAPSTONE_PATH=str(workspace))
    cmd = [str(bare_python), "-I", str(ext / "python" / "launch.py"), "serve", "--stdio"]
    with RawServer(tmp_path / "cache", cwd=workspace, cmd=cmd, env=env) as server:
        server.initialize(cproject)
        status = server.wait_state()
        assert status is not None and status["state"] == "loaded", server.stderr.decode()[-3000:]
        resp = server.request("gmonlens/disassembly", {"name": "work"}, timeout=60)
        assert resp is not None and resp.get("result"), (resp, server.stderr.decode()[-3000:])
        doc = resp["result"]
        assert "error" not in doc and doc["displayName"] == "work", doc
        assert sum(i["seconds"] for i in doc["instructions"]) == pytest.approx(
            profile.seconds(work.self_ticks), abs=1e-5
        )
        assert any(c["callee"] == "helper" for i in doc["instructions"] for c in i["calls"])
        maps = Path(f"/proc/{server.proc.pid}/maps")
        if maps.exists():
            mapped = {line.split()[-1] for line in maps.read_text().splitlines() if CAPSTONE_LIBRARY in line}
            assert mapped == {str(ext / "bundled" / "native" / "capstone" / "lib" / CAPSTONE_LIBRARY)}, mapped
        assert server.shutdown_and_exit() == 0
    assert not (workspace / "imported").exists()
    assert b"Traceback" not in server.stderr, server.stderr.decode()[-3000:]


@pytest.mark.parametrize("package", ["library-does-not-load", "platform-neutral"])
def test_without_a_loadable_capstone_one_line(
    unpacked: tuple[Path, str], bare_python: Path, workspace: Path, tmp_path: Path, package: str
) -> None:
    ext = tmp_path / "extension"
    shutil.copytree(unpacked[0], ext)
    if package == "platform-neutral":
        shutil.rmtree(ext / "bundled" / "native")
    else:
        (ext / "bundled" / "native" / "capstone" / "lib" / CAPSTONE_LIBRARY).write_bytes(b"garbage\n")
    got = run_bundle(
        ext, bare_python, workspace, "disasm", "burn", "sc", "gmon.out", cache=tmp_path / "cache"
    )
    assert got.returncode == 1 and "Traceback" not in got.stderr, got.stderr[-3000:]
    assert "no disassembly without the capstone module" in got.stderr
    loads = "the bundled capstone does not load" in got.stderr
    assert loads == (package == "library-does-not-load"), got.stderr
    with_c = run_bundle(
        ext, bare_python, workspace, "report", "-b", "-c", "sc", "gmon.out", cache=tmp_path / "cache"
    )
    assert with_c.returncode == 0 and "-c is unavailable" in with_c.stderr, with_c.stderr[-3000:]
    assert "Traceback" not in with_c.stderr and "never" not in with_c.stdout
    assert not (workspace / "imported").exists()


def test_bundled_mcp_disassembly_tool(
    unpacked: tuple[Path, str], bare_python: Path, workspace: Path, cproject: Path, tmp_path: Path
) -> None:
    """`gmonlens mcp`, which the extension offers VS Code's agent through the same launcher."""
    ext, _target = unpacked
    env = server_env(tmp_path / "cache", LIBCAPSTONE_PATH=str(workspace))
    argv = [str(bare_python), "-I", str(ext / "python" / "launch.py"), "mcp", "--workspace", str(cproject)]
    client = McpClient(argv, cwd=str(workspace), env=env)
    try:
        client.initialize()
        out = client.call("disassembly", routine="work", limit=5)
        assert out["isError"] is False, out["content"][0]["text"]
        doc = out["structuredContent"]
        assert doc["routine"] == "work" and len(doc["instructions"]) == 5
    finally:
        assert client.close() == 0
    assert not (workspace / "imported").exists()
