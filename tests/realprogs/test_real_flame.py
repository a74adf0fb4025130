"""The flame graph and the certainty figures on the real programs, against `gprof -b`: every
call-graph entry gprof prints outside a cycle (and every cycle as a whole) has frames in
`gmonlens export --format folded --min-percent 0` adding up to its self + children (read with
speedscope's folded-stacks rule), all frames to the call-graph total; `report --json`'s samples give
gprof's self seconds and the estimated part never exceeds the children time."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "integration"))
from gprof_harness import GMONLENS, gmonlens_env

PRIMARY = re.compile(r"^\[\d+\]\s+[\d.]+\s+([\d.]+)\s+([\d.]+)\s+(?:[\d+]+\s+)?(\S.*?) \[\d+\]$", re.M)
SPEEDSCOPE_LINE = re.compile(r"^(.*) (\d+)$")


def run(argv: list[str]) -> str:
    proc = subprocess.run(argv, capture_output=True, text=True, env=gmonlens_env())
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("which", ["sqlite_prog", "qjs_prog", "leveldb_prog", "libsass_prog"])
def test_flame_and_certainty_against_gprof(which: str, request: pytest.FixtureRequest) -> None:
    prog, _oracle = request.getfixturevalue(which)
    binary, gmon = str(prog.binary), str(prog.gmon)
    text = run(["gprof", "-b", binary, gmon]).split("Index by function name")[0]
    want: dict[str, tuple[float, float]] = {}
    for m in PRIMARY.finditer(text):
        if not re.search(r" <cycle \d+>$", m.group(3)):
            want.setdefault(m.group(3), (float(m.group(1)), float(m.group(2))))
    folded = run([str(GMONLENS), "export", "--format", "folded", "--min-percent", "0", binary, gmon])
    per: dict[str, int] = {}
    total = 0
    for line in folded.splitlines():
        m = SPEEDSCOPE_LINE.match(line)
        assert m, line
        total += int(m.group(2))
        for frame in set(m.group(1).split(";")):
            per[frame] = per.get(frame, 0) + int(m.group(2))
    timed = {n: s + c for n, (s, c) in want.items() if s + c > 0}
    assert timed
    for name, seconds in timed.items():
        assert abs(per.get(name, 0) / 1e6 - seconds) <= 0.0101, (name, per.get(name, 0), seconds)
    assert abs(total / 1e6 - sum(s for s, _c in want.values())) <= 0.005 * len(want) + 0.011
    doc = json.loads(run([str(GMONLENS), "report", "--json", binary, gmon]))
    period = doc["sample_period"]
    names = {r["display_name"]: r for r in doc["routines"]}
    for name, (s, _c) in want.items():
        r = names.get(name)
        if r is not None:
            assert abs(r["self_samples"] * period - s) <= 0.005 + 1e-9, name
            assert r["children_estimated_seconds"] <= r["children_seconds"] + 1e-9, name
