"""Every name gprof prints names its routine in `gmonlens mcp` (issue 27, items 12, 13 and 19), on
programs built at test time whose routines share names: the static `clamp` of one header in two
units (gprof's `clamp (main.c)`, `clamp (render.c)`), one file compiled three times (three
`match (match.c)`), a virtual destructor's two copies (`Worker::~Worker()` twice), C++ names in an
anonymous namespace and templates given without what gprof prints around them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from workspace_builds import build_workspace

from .mcpclient import McpClient, facts
from .test_mcp_programs import client, gprof, graph_blocks, primary

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def names_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_workspace("namesproject", tmp_path_factory.mktemp("mcp") / "namesproject")


@pytest.fixture(scope="module")
def cpp_names_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_workspace("cppnamesproject", tmp_path_factory.mktemp("mcp") / "cppnamesproject")


@pytest.fixture
def names(names_ws: Path) -> Iterator[McpClient]:
    with client(names_ws) as c:
        c.initialize()
        yield c


@pytest.fixture
def cpp_names(cpp_names_ws: Path) -> Iterator[McpClient]:
    with client(cpp_names_ws) as c:
        c.initialize()
        yield c


def index_names(ws: Path, binary: str) -> dict[int, str]:
    """gprof's index by function name: index -> the name it prints (with the static's `(file)`)."""
    text = gprof(ws / "build" / binary, ws / "build" / "gmon.out").split("Index by function name")[1]
    return {
        int(m.group(1)): m.group(2).strip()
        for m in re.finditer(r"\[(\d+)\] (.+?)(?= +\[\d+\]|$)", text, re.M)
    }


def entry(c: McpClient, **args: Any) -> dict[str, Any]:
    out = c.call("routine_entry", **args)
    assert out["isError"] is False, out["content"][0]["text"]
    sc: dict[str, Any] = out["structuredContent"]
    return sc


def test_statics_of_one_header_by_gprof_names(names_ws: Path, names: McpClient) -> None:
    """`clamp (main.c)` and `clamp (render.c)`, as gprof's index prints them, name each copy; so do
    `render.c:clamp` and `file: render.c` (the unit gprof names, though both are declared in
    include/util.h); the lists show the names that tell them apart."""
    gp = index_names(names_ws, "app")
    by_name = {n: i for i, n in gp.items()}
    for unit, caller in (("main.c", "main"), ("render.c", "render")):
        index = by_name[f"clamp ({unit})"]
        for how in ({"routine": f"clamp ({unit})"}, {"routine": f"{unit}:clamp"},
                    {"routine": "clamp", "file": unit}, {"routine": f"src/{unit}:clamp"}):  # fmt: skip
            got = entry(names, **how)
            assert got["index"] == index and got["parents"][0]["name"] == caller, how
            assert got["ref"] == f"clamp ({unit})"
    top = names.call("top_routines", limit=50)
    refs = [r["ref"] for r in top["structuredContent"]["routines"] if r["name"] == "clamp"]
    assert sorted(refs) == ["clamp (main.c)", "clamp (render.c)"]
    assert "clamp (main.c)" in top["content"][0]["text"] and "clamp (render.c)" in top["content"][0]["text"]


def test_one_file_compiled_three_times(names_ws: Path, names: McpClient) -> None:
    """Three `match (match.c)`: ambiguous, but every candidate is distinct and, given back as it is
    listed, names its own routine; gprof's index (`[2]`) and the address name one too."""
    gp = index_names(names_ws, "app")
    indexes = sorted(i for i, n in gp.items() if n == "match (match.c)")
    assert len(indexes) == 3
    for asked in ("match", "match (match.c)", "match.c:match"):
        amb = names.call("routine_entry", routine=asked)
        assert amb["isError"] is True, asked
        cands = facts(amb)["candidates"]
        assert len({c["name"] for c in cands}) == 3, cands
        got = sorted(entry(names, routine=c["name"])["index"] for c in cands)
        assert got == indexes
        for c in cands:
            assert c["name"] in amb["content"][0]["text"]
    for i in indexes:
        one = entry(names, routine=f"[{i}]")
        assert one["index"] == i and one["name"] == "match"
        assert entry(names, routine=f"match [{i}]")["index"] == i
        assert entry(names, routine=hex(one["address"]))["index"] == i
        assert entry(names, routine=hex(one["address"] + 4))["index"] == i  # inside it
    callers = {entry(names, routine=f"[{i}]")["parents"][0]["name"] for i in indexes}
    assert callers == {"match_8", "match_16", "match_32"}
    wrong = names.call("routine_entry", routine=f"clamp [{indexes[0]}]")
    assert wrong["isError"] is True and "match" in wrong["content"][0]["text"]


def test_refs_are_unique_and_usable(names: McpClient, cpp_names: McpClient) -> None:
    """Every routine the lists show has a `ref` no other routine has, and giving it back names it."""
    for c in (names, cpp_names):
        rows = c.call("top_routines", by="total", limit=500)["structuredContent"]["routines"]
        refs = [r["ref"] for r in rows]
        assert len(set(refs)) == len(refs), refs
        for r in rows:
            assert entry(c, routine=r["ref"])["index"] == r["index"], r["ref"]


def test_cpp_destructor_copies(cpp_names_ws: Path, cpp_names: McpClient) -> None:
    """A virtual destructor's deleting and complete copies print alike; the ambiguity lists them
    apart, each usable as given, with its mangled symbol (usable too)."""
    amb = cpp_names.call("routine_entry", routine="Worker::~Worker")
    assert amb["isError"] is True
    cands = facts(amb)["candidates"]
    assert len(cands) == 2 and len({c["name"] for c in cands}) == 2
    assert {c["symbol"] for c in cands} == {"_ZN6WorkerD0Ev", "_ZN6WorkerD1Ev"}
    for c in cands:
        assert entry(cpp_names, routine=c["name"])["symbol"] == c["symbol"]
        assert entry(cpp_names, routine=c["symbol"])["index"] == c["index"]
        assert c["symbol"] in amb["content"][0]["text"]


@pytest.mark.parametrize(
    ("asked", "full"),
    [
        ("index<128ul>", "unsigned long (anonymous namespace)::index<128ul>(char const*)"),
        (
            "(anonymous namespace)::index<64ul>",
            "unsigned long (anonymous namespace)::index<64ul>(char const*)",
        ),
        ("lib::scan", "lib::(anonymous namespace)::scan(int)"),
        ("lib::scan(int)", "lib::(anonymous namespace)::scan(int)"),
        ("Parser::parse", "(anonymous namespace)::Parser::parse(int)"),
        ("hot_helper", "(anonymous namespace)::hot_helper(int)"),
        ("Table<64>::index", "Table<64>::index(int)"),
        ("Table<128>::index(int)", "Table<128>::index(int)"),
        ("Worker::run", "Worker::run(int)"),
    ],
)
def test_cpp_names_as_written(cpp_names: McpClient, asked: str, full: str) -> None:
    assert entry(cpp_names, routine=asked)["name"] == full


def test_template_without_arguments(cpp_names: McpClient) -> None:
    """`Table::index` (no template arguments) names both instances: an ambiguity listing them."""
    amb = cpp_names.call("routine_entry", routine="Table::index")
    assert amb["isError"] is True, amb["content"][0]["text"]
    names = sorted(c["name"] for c in facts(amb)["candidates"])
    assert names == ["Table<128>::index(int)", "Table<64>::index(int)"]


def test_never_called_has_no_index(names_ws: Path, names: McpClient) -> None:
    """gprof prints no index for a routine without calls or time: neither do the tools (item 19)."""
    gp = index_names(names_ws, "app")
    never = entry(names, routine="never")
    assert never["index"] is None and never["printed"] is False
    text = names.call("routine_entry", routine="never")["content"][0]["text"]
    assert not re.search(r"\[\d+\]", text), text
    assert not any(n.startswith("never") for n in gp.values())
    blocks = graph_blocks(gprof(names_ws / "build" / "app", names_ws / "build" / "gmon.out"))
    fact = entry(names, routine="fact")
    assert "fact" in primary(blocks[fact["index"]])
