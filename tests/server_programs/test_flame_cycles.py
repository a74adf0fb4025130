"""The flame graph of a program whose hot path is one cycle (issue 27 item 8; SQLite: one cycle
holds 97.9% of the run): the cycle's frame opens into its members, each as wide as its line of
gprof's `<cycle N as a whole>` entry (self, and children from outside the cycle), marked as gprof's
estimate, with their callees outside the cycle below them."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gmonlens_ide.session import load_folder
from gmonlens_ide.settings import Settings
from gmonlens_lsp.features.flame_graph import flame_json

pytestmark = pytest.mark.integration

SOURCE = r"""
#include <stdio.h>
#include <stdlib.h>
/* a recursive-descent evaluator: expr -> term -> factor -> expr is one cycle */
static const char *at;
static long spin(long n) { long s = 0; for (long i = 0; i < n; i++) s += i % 7; return s; }
long number(void) { long v = spin(300); while (*at >= '0' && *at <= '9') v += *at++ - '0'; return v; }
long expr(void);
long factor(void) { spin(200); if (*at == '(') { at++; long v = expr(); at++; return v; } return number(); }
long term(void) { spin(400); long v = factor(); while (*at == '*') { at++; v *= factor(); } return v; }
long expr(void) { spin(800); long v = term(); while (*at == '+') { at++; v += term(); } return v; }
int main(int argc, char **argv) {
    long r = 0;
    int rounds = argc > 1 ? atoi(argv[1]) : 20000;
    for (int k = 0; k < rounds; k++) { at = "(1+2*(3+4))*5+(6*7+8)"; r += expr(); }
    printf("%ld\n", r);
    return 0;
}
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    for tool in ("gcc", "gprof"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    d = tmp_path_factory.mktemp("cycle") / "ws"
    d.mkdir()
    (d / "calc.c").write_text(SOURCE)
    subprocess.run(["gcc", "-g", "-pg", "-O0", "-o", "calc", "calc.c"], cwd=d, check=True)
    subprocess.run(["./calc"], cwd=d, check=True, capture_output=True, timeout=120)
    return d


def cycle_entry(ws: Path) -> tuple[float, dict[str, tuple[float, float]]]:
    """gprof's `<cycle 1 as a whole>` entry: its total, and each member line's (self, children)."""
    text = subprocess.run(["gprof", "-b", "calc", "gmon.out"], cwd=ws, capture_output=True, text=True,
                          check=True).stdout  # fmt: skip
    block = next(b for b in text.split("-" * 47) if "<cycle 1 as a whole>" in b)
    lines = block.strip("\n").splitlines()
    head = next(i for i, x in enumerate(lines) if x.startswith("["))
    whole = lines[head].split()
    members = {}
    for x in lines[head + 1 :]:
        m = re.match(r"\s+([\d.]+)\s+([\d.]+)\s+\S+\s+(\w+) <cycle 1>", x)
        assert m, x
        members[m.group(3)] = (float(m.group(1)), float(m.group(2)))
    return float(whole[2]) + float(whole[3]), members


def test_the_cycle_opens_into_its_members(ws: Path) -> None:
    whole, members = cycle_entry(ws)
    assert set(members) == {"expr", "term", "factor"}
    loaded = load_folder(str(ws), Settings(), 1).loaded
    assert loaded is not None
    fg = flame_json(loaded, ws.as_uri(), 0.001)
    frames = fg["frames"]
    (cycle,) = [i for i, f in enumerate(frames) if f["cycle"] == 1]
    assert frames[cycle]["selfSeconds"] == 0 and frames[cycle]["seconds"] == pytest.approx(whole, abs=0.006)
    inside = [f for f in frames if f["parent"] == cycle]
    assert {f["name"] for f in inside} == set(members)
    for f in inside:
        self_s, children = members[f["name"]]
        assert f.get("cycleMember") == 1 and f["estimated"] is True and f["routine"] is not None
        assert f["selfSeconds"] == pytest.approx(self_s, abs=0.006)  # as gprof's cycle entry prints it
        assert f["seconds"] == pytest.approx(self_s + children, abs=0.011)
    below = {
        frames[i]["name"]
        for i, f in enumerate(frames)
        if f["parent"] >= 0 and frames[f["parent"]].get("cycleMember")
    }
    below = {f["name"] for f in frames if f["parent"] >= 0 and frames[f["parent"]].get("cycleMember")}
    assert "number" in below and "spin" in below  # the members' callees outside the cycle
    # no frame deeper than the members repeats the cycle or a member outside it
    assert all(f.get("cycleMember") or f["name"] not in members for f in frames)
