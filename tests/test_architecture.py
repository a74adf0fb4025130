"""The layering ARCHITECTURE.md promises, checked on the source (AST, no import is executed):

- the engine (`analysis/gmonlens`, its commands included) imports no pygls and no lsprotocol;
- the LSP-free layer (`gmonlens_lsp.workspace`) imports no pygls, no lsprotocol and nothing of
  `gmonlens_lsp` outside itself (so no feature);
- the MCP server (`gmonlens_mcp`) imports no pygls, no lsprotocol and, of `gmonlens_lsp`, only
  the LSP-free layer;
- a feature module imports no other feature module;
- only the engine's I/O modules import elftools;
- no import circles anywhere in `analysis/` and `server/` (imports inside functions count too);
- the engine's rooms import only rooms before them (ROOMS);
- no function over 80 lines, except those listed in LONG_FUNCTIONS (each says why), none over 120;
- `gmonlens report` loads no pygls/lsprotocol and, of `gmonlens_lsp`, only the package and `cli`.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = (
    (ROOT / "analysis", "gmonlens"),
    (ROOT / "server", "gmonlens_lsp"),
    (ROOT / "server", "gmonlens_mcp"),
)
LSP_LIBS = ("pygls", "lsprotocol")
# the engine's I/O modules: the only ones that may import pyelftools
ELFTOOLS_MODULES = {
    "gmonlens.binary.image",
    "gmonlens.dwarf.pyelftools_info",
    "gmonlens.dwarf.declarations",
    "gmonlens.dwarf.info_fallback",
    "gmonlens.dwarf.line_headers",
    "gmonlens.dwarf.line_table",
    "gmonlens.dwarf.scopes",
    "gmonlens.load.program",
    "gmonlens.elfsections",
}
MAX_LINES = 80
HARD_MAX = 120
# module.function -> why it may be longer than MAX_LINES (at most two)
LONG_FUNCTIONS: dict[str, str] = {
    "gmonlens.dwarf.line_opcodes.decode_sequences": "the DWARF line-number opcode loop: one dispatch in one frame (hot)",
}


def _modules() -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for root, pkg in PACKAGES:
        for dirpath, dirnames, files in os.walk(root / pkg):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for f in files:
                if f.endswith(".py"):
                    path = Path(dirpath) / f
                    name = ".".join(path.relative_to(root).with_suffix("").parts)
                    mods[name.removesuffix(".__init__")] = path
    return mods


MODULES = _modules()
TREES = {name: ast.parse(path.read_text(), str(path)) for name, path in MODULES.items()}


def _imports(name: str) -> Iterator[str]:
    """Every module `name` imports (absolute names; `from X import y` yields X and X.y)."""
    is_pkg = MODULES[name].name == "__init__.py"
    for node in ast.walk(TREES[name]):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_pkg else 0)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield module
            for a in node.names:
                yield f"{module}.{a.name}"


def _internal(name: str) -> set[str]:
    return {m for m in _imports(name) if m in MODULES and m != name}


def _under(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_engine_imports_no_lsp() -> None:
    bad = {
        (name, m)
        for name in MODULES
        if _under(name, "gmonlens")
        for m in _imports(name)
        if m.split(".")[0] in LSP_LIBS or _under(m, "gmonlens_lsp")
    }
    assert not bad, f"the engine imports the LSP side: {sorted(bad)}"


def test_workspace_layer_is_lsp_free() -> None:
    bad = set()
    for name in MODULES:
        if not _under(name, "gmonlens_lsp.workspace"):
            continue
        for m in _imports(name):
            lsp = m.split(".")[0] in LSP_LIBS
            outside = _under(m, "gmonlens_lsp") and not _under(m, "gmonlens_lsp.workspace")
            if lsp or (outside and m != "gmonlens_lsp"):
                bad.add((name, m))
    assert not bad, f"gmonlens_lsp.workspace reaches outside itself: {sorted(bad)}"


def test_mcp_server_is_lsp_free() -> None:
    """`gmonlens_mcp` imports no pygls or lsprotocol and, of `gmonlens_lsp`, only the workspace layer."""
    bad = {
        (name, m)
        for name in MODULES
        if _under(name, "gmonlens_mcp")
        for m in _imports(name)
        if m.split(".")[0] in LSP_LIBS
        or (_under(m, "gmonlens_lsp") and not _under(m, "gmonlens_lsp.workspace") and m != "gmonlens_lsp")
    }
    assert not bad, f"gmonlens_mcp reaches the LSP side: {sorted(bad)}"


def test_features_import_no_feature() -> None:
    bad = {
        (name, m)
        for name in MODULES
        if _under(name, "gmonlens_lsp.features")
        for m in _internal(name)
        if _under(m, "gmonlens_lsp.features") and m != "gmonlens_lsp.features"
    }
    assert not bad, f"features import each other: {sorted(bad)}"


def test_only_engine_io_modules_import_elftools() -> None:
    bad = {
        name for name in MODULES if any(m.split(".")[0] == "elftools" for m in _imports(name))
    } - ELFTOOLS_MODULES
    assert not bad, f"elftools imported outside the engine's I/O modules: {sorted(bad)}"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def _package_edges(name: str) -> set[str]:
    # importing `a.b.c` runs `a.b`'s __init__ too, but a package __init__ that imports nothing is no
    # edge: count only the modules named
    return _internal(name)


def test_no_import_circles() -> None:
    graph = {name: _package_edges(name) for name in MODULES}
    assert _cycles(graph) == []


# the engine's rooms in order: a room imports only rooms before it (and itself)
ROOMS = ("common", "binary", "dwarf", "profile", "load", "output", "disasm", "runs", "commands")


def test_rooms_import_only_earlier_rooms() -> None:
    bad = set()
    for name in MODULES:
        parts = name.split(".")
        if parts[0] != "gmonlens" or len(parts) < 3:
            continue
        assert parts[1] in ROOMS, f"{name}: a room ROOMS does not list"
        for m in _internal(name):
            target = m.split(".")
            if target[0] == "gmonlens" and len(target) > 2 and ROOMS.index(target[1]) > ROOMS.index(parts[1]):
                bad.add((name, m))
    assert not bad, f"rooms importing later rooms: {sorted(bad)}"


def test_cycle_finder_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _functions() -> Iterator[tuple[str, int]]:
    for name, tree in TREES.items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno is not None
                yield f"{name}.{node.name}", node.end_lineno - node.lineno + 1


def test_functions_are_short() -> None:
    assert len(LONG_FUNCTIONS) <= 2
    long = {f: n for f, n in _functions() if n > MAX_LINES and f not in LONG_FUNCTIONS}
    assert not long, f"functions over {MAX_LINES} lines: {long}"
    too_long = {f: n for f, n in _functions() if n > HARD_MAX}
    assert not too_long, f"functions over {HARD_MAX} lines: {too_long}"


@pytest.mark.parametrize(
    "argv", [["report", "--help"], ["report", "/nonexistent-a.out", "/nonexistent-gmon"]]
)
def test_report_loads_no_lsp(argv: list[str]) -> None:
    code = (
        "import sys, gmonlens_lsp.cli as c\n"
        "import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        f"    c.main({argv!r})\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'gmonlens_lsp')))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(r) for r, _ in PACKAGES))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "['gmonlens_lsp', 'gmonlens_lsp.cli']"


# ---- the LSP layer: only render builds lsprotocol objects, and render reads nothing ------------

RENDER = "gmonlens_lsp.render"
# what would let render read a file or decode DWARF (through the index) itself
RENDER_FORBIDDEN = {"os", "io", "pathlib", "shutil", "builtins.open", "open", "file_lines", "file_locator",
                    "SourceIndex", "DwarfIndex", "LineTable", "LineLocator"}  # fmt: skip


def _lsp_type_names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """Names bound to `lsprotocol.types` (the module) and to classes imported from it."""
    modules, classes = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "lsprotocol":
            modules |= {a.asname or a.name for a in node.names if a.name == "types"}
        elif isinstance(node, ast.ImportFrom) and node.module == "lsprotocol.types":
            classes |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Import):
            modules |= {a.asname for a in node.names if a.name == "lsprotocol.types" and a.asname}
    return modules, classes


def lsp_constructions(tree: ast.AST) -> list[str]:
    """The `types.<Name>(...)` calls (an lsprotocol class built) in `tree`."""
    modules, classes = _lsp_type_names(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in modules:
            if f.attr[:1].isupper():
                found.append(f"types.{f.attr}")
        elif isinstance(f, ast.Name) and f.id in classes and f.id[:1].isupper():
            found.append(f.id)
    return found


def test_only_render_builds_lsp_objects() -> None:
    bad = {
        (name, call)
        for name in MODULES
        if _under(name, "gmonlens_lsp") and name != RENDER
        for call in lsp_constructions(TREES[name])
    }
    assert not bad, f"lsprotocol objects built outside render.py: {sorted(bad)}"


def test_lsp_construction_scan_finds_them() -> None:
    tree = ast.parse("from lsprotocol import types\nfrom lsprotocol.types import Range\nx = types.Position(0, 0)\n"
                     "y = Range(x, x)\nz = types.MessageType.Info\n")  # fmt: skip
    assert lsp_constructions(tree) == ["types.Position", "Range"]


def test_render_reads_nothing() -> None:
    used = set()
    for node in ast.walk(TREES[RENDER]):
        if isinstance(node, ast.Import):
            used |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            used |= {node.module or ""} | {a.name for a in node.names}
        elif isinstance(node, ast.Name):
            used.add(node.id)
    assert not used & RENDER_FORBIDDEN, (
        f"render.py reads files or the index: {sorted(used & RENDER_FORBIDDEN)}"
    )
