"""The layering ARCHITECTURE.md promises, checked on the source (AST, no import is executed):

- the engine (`analysis/gmonlens`, its commands included) imports no pygls and no lsprotocol;
- floors, imports one way: the engine (`gmonlens`) <- the editor-neutral layer (`gmonlens_ide`)
  <- the adapters (`gmonlens_lsp`, `gmonlens_mcp`; never each other) <- the entry point
  (`gmonlens_cli`); the engine and `gmonlens_ide` import no pygls, lsprotocol or MCP SDK;
  `gmonlens_mcp` imports no pygls or lsprotocol;
- a feature module imports no other feature module;
- only the engine's I/O modules import elftools;
- no import circles anywhere in `analysis/` and `server/` (imports inside functions count too);
- no function over 80 lines, except those listed in LONG_FUNCTIONS (each says why), none over 120;
- `gmonlens report` loads no pygls/lsprotocol, no adapter and no `gmonlens_ide`: of the servers'
  side only `gmonlens_cli.main`;
- the engine's rooms (`ENGINE_ROOMS`) form a strict order: a module imports its own room and rooms
  before it, never one after it (function-level and TYPE_CHECKING imports included), and every
  room's `__init__.py` is empty;
- only the facade (`gmonlens.load.program`) opens a program's files: nothing else builds an
  `ElfFile` or calls `open_regular`;
- no module is imported by a name in a string (`importlib.import_module("gmonlens...")`).
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
    (ROOT / "server", "gmonlens_ide"),
    (ROOT / "server", "gmonlens_lsp"),
    (ROOT / "server", "gmonlens_mcp"),
    (ROOT / "server", "gmonlens_cli"),
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
# the engine's rooms, in order: each may import only itself and the rooms before it
ENGINE_ROOMS = (
    "common",
    "binary",
    "dwarf",
    "profile",
    "load",
    "output",
    "disasm",
    "runs",
    "suites",
    "check",
    "commands",
)
# the facade: the only module that opens a program's binary (`open_elf`) or calls `open_regular`
# (the disk cache opens its own entries, which are not the program's)
OPENERS = {"gmonlens.load.program", "gmonlens.load.diskcache", "gmonlens.common.files"}
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


# package -> the packages of ours it may import (floors: imports go one way)
FLOORS = {
    "gmonlens": {"gmonlens"},
    "gmonlens_ide": {"gmonlens", "gmonlens_ide"},
    "gmonlens_lsp": {"gmonlens", "gmonlens_ide", "gmonlens_lsp"},
    "gmonlens_mcp": {"gmonlens", "gmonlens_ide", "gmonlens_mcp"},
    "gmonlens_cli": {"gmonlens", "gmonlens_ide", "gmonlens_lsp", "gmonlens_mcp", "gmonlens_cli"},
}
# package -> third-party libraries it must not import
FORBIDDEN_LIBS = {
    "gmonlens": {"pygls", "lsprotocol", "mcp"},
    "gmonlens_ide": {"pygls", "lsprotocol", "mcp"},
    "gmonlens_mcp": {"pygls", "lsprotocol"},
}


def _floor_violations(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    bad = set()
    for name, imported in graph.items():
        top = name.split(".")[0]
        for m in imported:
            other = m.split(".")[0]
            if other in FLOORS and other not in FLOORS[top]:
                bad.add((name, m))
            if other in FORBIDDEN_LIBS.get(top, ()):
                bad.add((name, m))
    return bad


def test_floors_import_one_way() -> None:
    bad = _floor_violations({name: set(_imports(name)) for name in MODULES})
    assert not bad, f"imports across floors the wrong way (or a forbidden library): {sorted(bad)}"


def test_floor_check_finds_violations() -> None:
    graph = {
        "gmonlens_mcp.a": {"gmonlens_lsp.b", "gmonlens_ide.c"},
        "gmonlens_ide.c": {"lsprotocol.types", "gmonlens.common.model"},
        "gmonlens.common.model": {"gmonlens_ide.c"},
    }
    assert _floor_violations(graph) == {
        ("gmonlens_mcp.a", "gmonlens_lsp.b"),
        ("gmonlens_ide.c", "lsprotocol.types"),
        ("gmonlens.common.model", "gmonlens_ide.c"),
    }


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


# the engine's modules that start processes, and what they run: binutils' c++filt (gprof's own
# demangler), the user's command (`gmonlens record`, `gmonlens test`'s tests, because the user
# asked), the user's C compiler (building record's helper library) and the test runner the user
# named asked for its list of tests (`gmonlens test`)
PROCESS_STARTERS = {"gmonlens.common.demangle", "gmonlens.runs.launch", "gmonlens.runs.preload",
                    "gmonlens.suites.listing"}  # fmt: skip
_SPAWNERS = {"subprocess", "os.system", "os.popen", "os.posix_spawn", "os.posix_spawnp", "os.fork",
             "os.forkpty", "pty.fork", "os.execv", "os.execve", "os.execvp", "os.execvpe"}  # fmt: skip


def test_engine_starts_processes_only_where_listed() -> None:
    bad = set()
    for name, tree in TREES.items():
        if not _under(name, "gmonlens") or name in PROCESS_STARTERS:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                dotted = f"{node.value.id}.{node.attr}"
                if dotted in _SPAWNERS or node.value.id == "subprocess":
                    bad.add((name, dotted))
        bad |= {(name, m) for m in _imports(name) if m == "subprocess" or m.startswith("subprocess.")}
    assert not bad, f"processes started outside PROCESS_STARTERS: {sorted(bad)}"


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
        "import sys, gmonlens_cli.main as c\n"
        "import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        f"    c.main({argv!r})\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('pygls', 'lsprotocol', 'gmonlens_lsp', 'gmonlens_mcp', 'gmonlens_ide', 'gmonlens_cli')))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(r) for r, _ in PACKAGES))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "['gmonlens_cli', 'gmonlens_cli.main']"


# ---- the LSP layer: only render builds lsprotocol objects, and render reads nothing ------------

RENDER = "gmonlens_lsp.to_lsp"
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
        f"to_lsp.py reads files or the index: {sorted(used & RENDER_FORBIDDEN)}"
    )


# ---- the engine's rooms ------------------------------------------------------------------------


def _room(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if parts[0] == "gmonlens" and len(parts) > 2 else None


def test_engine_modules_live_in_rooms() -> None:
    loose = sorted(n for n in MODULES if _under(n, "gmonlens") and n != "gmonlens" and _room(n) is None
                   and n.removeprefix("gmonlens.") not in ENGINE_ROOMS)  # fmt: skip
    assert not loose, f"engine modules outside every room: {loose}"
    unknown = sorted({r for n in MODULES if (r := _room(n)) is not None} - set(ENGINE_ROOMS))
    assert not unknown, f"rooms missing from ENGINE_ROOMS (place them in the order): {unknown}"


def _upward_imports(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(module, imported) pairs where a room imports a room after it in ENGINE_ROOMS."""
    rank = {room: i for i, room in enumerate(ENGINE_ROOMS)}
    bad = set()
    for name, imported in graph.items():
        room = _room(name)
        for m in imported:
            other = _room(m) or (m.split(".")[1] if m.count(".") == 1 and m.startswith("gmonlens.") else None)
            if room in rank and other in rank and rank[other] > rank[room]:
                bad.add((name, m))
    return bad


def test_rooms_import_only_rooms_before_them() -> None:
    bad = _upward_imports({name: _internal(name) for name in MODULES})
    assert not bad, f"imports going up or sideways between rooms: {sorted(bad)}"


def test_room_order_check_finds_an_upward_import() -> None:
    graph = {
        "gmonlens.profile.a": {"gmonlens.output.b", "gmonlens.common.c"},
        "gmonlens.output.b": {"gmonlens.profile.a", "gmonlens.output.d"},
    }
    assert _upward_imports(graph) == {("gmonlens.profile.a", "gmonlens.output.b")}


def test_room_packages_are_empty() -> None:
    full = sorted(
        name
        for name, path in MODULES.items()
        if path.name == "__init__.py"
        and _under(name, "gmonlens")
        and name != "gmonlens"
        and path.read_text().strip()
    )
    assert not full, f"room __init__.py files must be empty (start-up must not grow): {full}"


def test_only_the_facade_opens_program_files() -> None:
    bad = set()
    for name, tree in TREES.items():
        if not _under(name, "gmonlens") or name in OPENERS:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                if called in ("ElfFile", "open_regular"):
                    bad.add((name, called))
    assert not bad, f"program files opened outside the facade: {sorted(bad)}"


def test_no_module_imported_by_a_string() -> None:
    bad = set()
    for name, tree in TREES.items():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "import_module"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and str(node.args[0].value).startswith("gmonlens")
            ):
                bad.add((name, node.args[0].value))
    assert not bad, f"modules imported by a name in a string: {sorted(bad)}"


# ---- the test folders: what `make check` runs and what needs a toolchain ------------------------

FAST_FOLDERS = ("tests/analysis", "tests/server")  # no compiler, no gprof, no editor
BUILT_FOLDERS = ("tests/server_programs",)  # every test builds its inputs with gcc


def _marked(tree: ast.Module) -> bool:
    """Whether a test module carries a toolchain mark (`pytestmark`, or one on a test)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("integration", "e2e", "realprogs", "slow"):
            return True
    return False


def _test_modules(folder: str) -> dict[str, ast.Module]:
    base = ROOT / folder
    return {
        str(p.relative_to(ROOT)): ast.parse(p.read_text(), str(p)) for p in sorted(base.glob("test_*.py"))
    }


def test_fast_folders_need_no_toolchain() -> None:
    marked = sorted(name for f in FAST_FOLDERS for name, tree in _test_modules(f).items() if _marked(tree))
    assert not marked, f"tests needing a toolchain in a fast folder (move them to {BUILT_FOLDERS}): {marked}"


def test_built_folders_are_marked() -> None:
    bare = sorted(
        name
        for f in BUILT_FOLDERS
        for name, tree in _test_modules(f).items()
        if not any(isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in n.targets)
                   for n in tree.body)
    )  # fmt: skip
    assert not bare, f"modules without `pytestmark = pytest.mark.integration` in a built folder: {bare}"
