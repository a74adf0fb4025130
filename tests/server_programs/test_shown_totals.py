"""Totals shown beside their parts add up, everywhere the editor and the agent show them (issue 27
item 7), on the C fixture's real binary with a profile whose samples are chosen so that the total
rounded on its own would differ: at 1000 samples a second, main's self time is 24 samples (0.024
s, shown 0.02) and its children's 344 (0.344 s, shown 0.34): the total is shown 0.36 (their sum),
never 0.37 (0.368 rounded alone). "Few samples" is said of a routine whose total rests on 7
samples shown as 0.01 s (is_even), never of one of 3 samples shown as 0.00 s (clamp)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from binaries import read_image
from gmonlens_ide.figures import FEW_MARK
from gmonlens_ide.session import load_folder
from gmonlens_ide.settings import DEFAULT_LENS_TITLE, Settings
from gmonlens_lsp import to_lsp
from gmonlens_lsp.from_lsp import place_text
from gmonwriter import Arc, Hist, gnu_file
from routine_keys import named, named_values

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = {"main": 24, "util_sum": 334, "is_even": 7, "clamp": 3}
ARCS = [("main", "work"), ("work", "util_sum"), ("main", "is_even"), ("work", "clamp")]


@pytest.fixture(scope="module")
def ws(c_ws: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The C fixture with a profile written for it (the histogram and arcs above)."""
    out = tmp_path_factory.mktemp("totals") / "ws"
    shutil.copytree(c_ws, out, ignore=shutil.ignore_patterns(".cache", "gmon.out"))
    image = read_image(str(out / "build" / "app"))
    funcs = named_values(
        (s.name, s.value) for s in image.symbols if s.is_function and s.name in {*SAMPLES, "work"}
    )
    low, high = image.text_start, image.text_end
    counts = [0] * ((high - low + 1) // 2)
    for name, n in SAMPLES.items():
        counts[(funcs[name] + 4 - low) // 2] = n  # inside the routine, past its first instruction
    arcs = [Arc(funcs[a] + 8, funcs[b], 1) for a, b in ARCS]  # a return address inside the caller
    data = gnu_file([Hist(low, low + 2 * len(counts), counts, prof_rate=1000), *arcs])
    (out / "build" / "gmon.out").write_bytes(data)
    return out


def test_gprof_prints_the_parts(ws: Path) -> None:
    if shutil.which("gprof") is None:
        pytest.skip("gprof is not installed")
    text = subprocess.run(["gprof", "-b", "app", "gmon.out"], cwd=ws / "build", capture_output=True, text=True,
                          check=True).stdout  # fmt: skip
    main = next(x for x in text.splitlines() if x.startswith("[") and x.rstrip().endswith("main [1]"))
    assert main.split()[2:4] == ["0.02", "0.34"], main  # gprof's self and children of main


def test_every_total_beside_its_parts_adds_up(ws: Path) -> None:
    loaded = load_folder(str(ws), Settings(), 1).loaded
    assert loaded is not None
    p = loaded.profile
    main = named(p.routines, "name")["main"]
    assert (main.prop_self_ticks, main.prop_child_ticks) == (24, 344)
    assert f"{p.seconds(main.total_ticks):.2f}" == "0.37"  # the total rounded alone
    f = to_lsp.figures(p, main)
    assert (f.self_s, f.children_s, f.total_s) == ("0.02", "0.34", "0.36")
    hover = to_lsp.hover_markdown(p, {}, main.id, loaded.certainty)
    assert "Total **0.36 s** (self 0.02 s + children 0.34 s)" in hover and "0.37" not in hover
    place = loaded.index.place(main.id)
    assert place is not None
    lens = to_lsp.code_lens(p, main.id, place, place_text(place), DEFAULT_LENS_TITLE, 1)
    assert lens.command is not None and "self 0.02 s · total 0.36 s" in lens.command.title
    item = to_lsp.call_item(p, main.id, place, place_text(place), loaded.binary, 1)
    assert item.detail is not None and "total 0.36 s" in item.detail and "0.37" not in item.detail
    symbol = to_lsp.symbol(p, main.id, place, place_text(place))
    assert symbol.container_name is not None and "total 0.36 s" in symbol.container_name


def test_few_samples_only_above_zero(ws: Path) -> None:
    loaded = load_folder(str(ws), Settings(), 1).loaded
    assert loaded is not None
    p = loaded.profile
    for name, few in (("is_even", True), ("clamp", False)):
        r = named((r for r in p.routines if r.self_ticks), "name")[name]
        f = to_lsp.figures(p, r)
        assert f.few is few, (name, f)
        title = to_lsp.lens_title(DEFAULT_LENS_TITLE, f)
        assert (FEW_MARK in title) is few, title
        hover = to_lsp.hover_markdown(p, {}, r.id, loaded.certainty)
        assert ("Few samples" in hover) is few, hover


def test_mcp_text_adds_up(ws: Path, tmp_path: Path) -> None:
    """The agent's list shows the same total beside the same parts."""
    sys.path.insert(0, str(ROOT / "tests"))
    from mcp_server.mcpclient import McpClient

    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    with McpClient([str(ROOT / ".venv" / "bin" / "gmonlens"), "mcp", "--workspace", str(ws)], env=env) as c:
        c.initialize()
        text = c.call("top_routines", by="total", limit=3)["content"][0]["text"]
    line = next(x for x in text.splitlines() if ". main:" in x)
    assert "total 0.36 s" in line and "children 0.34 s" in line and "0.37" not in line, line
