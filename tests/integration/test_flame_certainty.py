"""The flame graph and the certainty figures on real -pg programs, held against `gprof -b`.

`gmonlens export --format folded` is read back with speedscope's folded-stacks rule (a line is
`STACK VALUE`, `^(.*) (\\d+)$`, frames split on `;`): each call-graph entry gprof prints (routines
outside cycles, and cycles as a whole) must have frames whose values add up to its self + children,
and all lines to the call-graph total; with gprof's options too. `report --json`'s sample counts
and estimates are checked against the same report."""

from __future__ import annotations

import json
import math
import re
import subprocess

import pytest
from gprof_harness import GMONLENS, Built, Workshop, gmonlens_env
from test_export import CYCLES, SHAPES, gprof_b

pytestmark = pytest.mark.integration

PRIMARY = re.compile(r"^\[\d+\]\s+[\d.]+\s+([\d.]+)\s+([\d.]+)\s+(?:[\d+]+\s+)?(\S.*?) \[\d+\]$", re.M)
SPEEDSCOPE_LINE = re.compile(r"^(.*) (\d+)$")


@pytest.fixture(scope="module")
def cycles(workshop: Workshop) -> Built:
    return workshop.get(CYCLES)


@pytest.fixture(scope="module")
def shapes(workshop: Workshop) -> Built:
    return workshop.get(SHAPES)


def gmonlens(built: Built, *argv: str) -> str:
    full = [str(GMONLENS), *argv, str(built.binary), str(built.gmon["out"])]
    proc = subprocess.run(full, capture_output=True, env=gmonlens_env(), cwd=built.dir, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def entries(text: str) -> dict[str, tuple[float, float]]:
    """gprof's call-graph primary lines outside cycles: name -> (self, children) as printed."""
    out: dict[str, tuple[float, float]] = {}
    for m in PRIMARY.finditer(text.split("Index by function name")[0]):
        name = m.group(3)
        if re.search(r" <cycle \d+>$", name):
            continue  # a member: its cycle is the frame
        out[name] = (float(m.group(1)), float(m.group(2)))
    return out


def inclusive(folded: str) -> tuple[int, dict[str, int]]:
    total, per = 0, {}
    for line in folded.splitlines():
        m = SPEEDSCOPE_LINE.match(line)
        assert m, line
        value = int(m.group(2))
        total += value
        for frame in set(m.group(1).split(";")):
            per[frame] = per.get(frame, 0) + value
    return total, per


@pytest.mark.parametrize(
    ("which", "flags"),
    [("cycles", ()), ("shapes", ()), ("cycles", ("-E", "bottom")), ("cycles", ("-c",))],
    ids=["cycles", "shapes", "cycles-E", "cycles-c"],
)
def test_folded_frames_add_up_to_gprof(
    which: str, flags: tuple[str, ...], request: pytest.FixtureRequest
) -> None:
    built: Built = request.getfixturevalue(which)
    text = gprof_b(built, *flags)
    folded = gmonlens(built, "export", "--format", "folded", "--min-percent", "0", *flags)
    total, per = inclusive(folded)
    want = entries(text)
    main_self, main_children = want["main"]
    grand = sum(s for s, _c in want.values())  # every second of self time sits in one entry
    assert math.isclose(total / 1e6, grand, abs_tol=0.005 * len(want) + 0.011)
    assert abs(per["main"] / 1e6 - (main_self + main_children)) <= 0.011
    checked = 0
    for name, (s, c) in want.items():
        if s + c == 0:
            continue
        got = per.get(name, 0) / 1e6
        assert abs(got - (s + c)) <= 0.011, (name, got, s, c)
        checked += 1
    assert checked >= 5


def test_json_certainty_against_gprof(cycles: Built) -> None:
    doc = json.loads(gmonlens(cycles, "report", "--json"))
    text = gprof_b(cycles)
    want = entries(text)
    period = doc["sample_period"]
    by_name = {r["display_name"]: r for r in doc["routines"]}
    for name, (s, _c) in want.items():
        r = by_name.get(name)
        if r is None:
            continue
        assert abs(r["self_samples"] * period - s) <= 0.005 + 1e-9
        assert math.isclose(r["self_stderr_seconds"], math.sqrt(r["self_samples"]) * period)
        assert math.isclose(r["total_stderr_seconds"], math.sqrt(r["total_seconds"] / period) * period)
        assert 0 <= r["children_estimated_seconds"] <= r["children_seconds"] + 1e-9
    # the diamond: top calls l and r (one caller each: exact), whose callees (bottom: l and r;
    # spin: everyone) are split, so top's children are estimated but for l's and r's self time
    top, left, right = by_name["top"], by_name["l"], by_name["r"]
    exact = left["self_seconds"] + right["self_seconds"]
    assert math.isclose(top["children_estimated_seconds"], top["children_seconds"] - exact, rel_tol=1e-9)
    assert by_name["bottom"]["callers"] == 2 and left["callers"] == 1
    assert {h["code"] for h in doc["health"]} <= {"few_samples", "sources_newer", "binary_changed"}
