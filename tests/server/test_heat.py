"""Line heat on the server side: the per-file index (heat.py) and its LSP rendering (to_lsp.py), on a
hand-made LineHeat, and on the cproject fixture (a real -O0 profile)."""

from __future__ import annotations

import os
import random
from dataclasses import replace
from pathlib import Path

from gmonlens.common.model import Profile, Routine
from gmonlens.profile.line_heat import LineFigure, LineHeat, LineSpan
from gmonlens_ide.heat_index import build_index
from gmonlens_ide.settings import DEFAULT_LINE_HEAT_LABEL
from gmonlens_ide.sourcetext import LineLocator, file_locator, lsp_lines
from gmonlens_lsp import to_lsp, wire


def _routine(rid: int, name: str, address: int, ticks: float) -> Routine:
    return Routine(rid, name, name, address, address + 15, False, True, None, 0, ticks, 0.0, ticks, 0.0,
                   1, 0, 0, rid + 1, True, True, 1.0)  # fmt: skip


def _profile(*routines: Routine) -> Profile:
    n = len(routines)
    return Profile(
        routines, (), (), (), ((),) * n, ((),) * n, 100, "seconds", "s", 2.0, 40.0, 40.0, True, True
    )


def _heat(tmp_path: Path) -> tuple[LineHeat, Profile, Path]:
    header, source = tmp_path / "mix.h", tmp_path / "main.c"
    profile = _profile(_routine(0, "work", 0x100, 30.0), _routine(1, "main", 0x200, 10.0))
    spans = (
        LineSpan(0x100, 0x108, 0, str(header), 3, 24.0),
        LineSpan(0x108, 0x110, 0, str(source), 9, 6.0),
        LineSpan(0x200, 0x208, 1, str(header), 3, 8.0),
        LineSpan(0x208, 0x210, 1, str(source), 20, 2.0),
    )
    lines = {
        str(header): (LineFigure(str(header), 3, 32.0, ((0, 24.0), (1, 8.0))),),
        str(source): (
            LineFigure(str(source), 9, 6.0, ((0, 6.0),)),
            LineFigure(str(source), 20, 2.0, ((1, 2.0),)),
        ),
    }
    return LineHeat(spans, lines, 40.0, 100), profile, source


def test_index_by_file_and_range(tmp_path: Path) -> None:
    heat, profile, source = _heat(tmp_path)
    source.write_text("x\n" * 30)
    index = build_index(heat, profile, lambda recorded: recorded)
    fh = index.for_path(str(source))
    assert fh is not None and [h.line for h in fh.lines] == [9, 20]
    assert [h.line for h in fh.between(10, 20)] == [20]
    assert fh.between(21, 99) == ()
    header = index.for_path(str(tmp_path / "mix.h"))
    assert header is not None
    (line3,) = header.lines
    assert (line3.seconds, line3.percent, line3.routine) == (0.32, 80.0, "work")
    assert line3.routines == (("work", 0.24), ("main", 0.08))
    assert index.total_seconds == 0.4


def test_render_label_tooltip_hint_and_result(tmp_path: Path) -> None:
    heat, profile, source = _heat(tmp_path)
    index = build_index(heat, profile, lambda recorded: recorded)
    (line3,) = index.for_path(str(tmp_path / "mix.h")).lines  # type: ignore[union-attr]
    assert to_lsp.heat_label(DEFAULT_LINE_HEAT_LABEL, line3) == "0.32 s · 80.0%"
    assert to_lsp.heat_label("{routine}@{line}", line3) == "work@3"
    assert to_lsp.heat_label("{nope}", line3) == "0.32 s · 80.0%"  # falls back
    assert (
        to_lsp.heat_label("{seconds} ± {err} s ({samples} samples){few}", line3)
        == "0.32 ± 0.06 s (32 samples)"
    )
    assert to_lsp.heat_tooltip(line3) == (
        "Line samples: 0.32 ± 0.06 s (32 samples), 80.0% of the total time, in work (work 0.24 s, main 0.08 s)"
    )
    few = replace(line3, samples=4.0, seconds=0.04)
    assert to_lsp.heat_label(DEFAULT_LINE_HEAT_LABEL, few) == "0.04 s · 80.0% · few samples"
    hint = to_lsp.inlay_hint(line3, "  r = (r * 31) ^ é𝄞;", DEFAULT_LINE_HEAT_LABEL)
    assert (hint.position.line, hint.position.character) == (2, 21)  # 20 characters, 𝄞 is 2 UTF-16 units
    result = wire.line_heat("file:///x/main.c", index, index.for_path(str(source)))
    assert result["totalSeconds"] == 0.4
    assert [e["line"] for e in result["lines"]] == [8, 19]  # 0-based
    assert result["lines"][0] == {
        "line": 8, "seconds": 0.06, "percent": 15.0, "routine": "work", "routines": [{"name": "work", "seconds": 0.06}],
        "samples": 6.0, "errSeconds": round(0.06 / 6**0.5, 6),
    }  # fmt: skip
    assert wire.line_heat("u", index, None)["lines"] == []


def test_line_locator_is_lsp_lines() -> None:
    """Every line as `lsp_lines` cuts it (\\n, \\r\\n, lone \\r), whatever the chunking and the order
    the lines are asked in; "" past either end."""
    rng = random.Random(10)
    pieces = ["a", "bc", "\n", "\r\n", "é", "𝄞", "\r", "  ", ""]
    for _ in range(1500):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 60)))
        if rng.random() < 0.5:  # the usual case: no lone \r (counted per chunk, not split)
            text = text.replace("\r", "") + rng.choice(["", "\r\n", "x\r\ny"])
        want = lsp_lines(text)
        locator = LineLocator(text, chunk=rng.choice([1, 2, 3, 7, 64]))
        order = list(range(-2, len(want) + 3))
        rng.shuffle(order)
        for i in order:
            assert locator.line(i) == (want[i] if 0 <= i < len(want) else ""), (text, i)


def test_file_locator_follows_the_file(tmp_path: Path) -> None:
    f = tmp_path / "a.c"
    f.write_bytes(b"int a;\r\nint b;\n")
    first = file_locator(str(f))
    assert [first.line(i) for i in range(4)] == ["int a;", "int b;", "", ""]
    assert file_locator(str(f)) is first  # read once
    f.write_bytes(b"x\n")
    os.utime(f, ns=(1, 1))
    assert file_locator(str(f)).line(0) == "x"
    assert file_locator(str(tmp_path / "missing.c")).line(0) == ""
