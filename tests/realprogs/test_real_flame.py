"""The flame graph and the certainty figures on the real programs, against `gprof -b`: every
call-graph entry gprof prints outside a cycle (and every cycle as a whole) has frames in
`gmonlens export --format folded --min-percent 0` adding up to its self + children (read with
speedscope's folded-stacks rule), all frames to the call-graph total; `report --json`'s samples give
gprof's self seconds and the estimated part never exceeds the children time.

Entries are matched routine by routine, by gprof's index (`report --json`'s `index`). A frame has
only a name, which several routines can share (a C++ destructor's D0/D1/D2 symbols, `static`
routines of one name in two files): the frames of a shared name cover the entries of that name
together, so they are at least the widest one's total and at most the sum of their totals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "integration"))
from gprof_harness import GMONLENS, gmonlens_env

from routine_keys import call_graph, check_frames, frames_per_name

ROUNDING = 0.005 + 1e-9  # gprof prints seconds to 2 decimals


def run(argv: list[str]) -> str:
    proc = subprocess.run(argv, capture_output=True, text=True, env=gmonlens_env())
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("which", ["sqlite_prog", "qjs_prog", "leveldb_prog", "libsass_prog"])
def test_flame_and_certainty_against_gprof(which: str, request: pytest.FixtureRequest) -> None:
    prog, _oracle = request.getfixturevalue(which)
    binary, gmon = str(prog.binary), str(prog.gmon)
    entries = [e for e in call_graph(run(["gprof", "-b", binary, gmon])) if e.whole or not e.cycle]
    assert len({e.index for e in entries}) == len(entries)
    folded = run([str(GMONLENS), "export", "--format", "folded", "--min-percent", "0", binary, gmon])
    total, per = frames_per_name(folded)
    assert check_frames(entries, per, 0.0101) > 0
    assert abs(total / 1e6 - sum(e.self_s for e in entries)) <= 0.005 * len(entries) + 0.011
    doc = json.loads(run([str(GMONLENS), "report", "--json", binary, gmon]))
    period = doc["sample_period"]
    ours = {r["index"]: r for r in doc["routines"]} | {c["index"]: c for c in doc["cycles"]}
    checked = 0
    for e in entries:
        if e.whole and e.self_s + e.children_s == 0:
            continue  # a cycle no routine outside calls: gprof prints its whole as 0 (flame.py)
        r = ours.get(e.index)
        assert r is not None, e
        assert abs(r["self_samples"] * period - e.self_s) <= ROUNDING, (e, r["self_samples"])
        assert r["children_estimated_seconds"] <= r["children_seconds"] + 1e-9, e
        if not e.whole:
            assert r["display_name"] == e.name, e
        checked += 1
    assert checked >= len(entries) // 2
