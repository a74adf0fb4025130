"""The flame graph and the certainty figures on real -pg programs, held against `gprof -b`.

`gmonlens export --format folded` is read back with speedscope's folded-stacks rule (a line is
`STACK VALUE`, `^(.*) (\\d+)$`, frames split on `;`): each call-graph entry gprof prints (routines
outside cycles, and cycles as a whole) must have frames whose values add up to its self + children,
and all lines to the call-graph total; with gprof's options too. `report --json`'s sample counts
and estimates are checked against the same report."""

from __future__ import annotations

import json
import math
import subprocess

import pytest
from gprof_harness import GMONLENS, Built, Workshop, gmonlens_env
from test_export import CYCLES, SHAPES, gprof_b

from routine_keys import Entry, call_graph, check_frames, frames_per_name, named

pytestmark = pytest.mark.integration


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


def entries(text: str) -> list[Entry]:
    """gprof's call-graph entries outside cycles (cycles as a whole, not their members)."""
    return [e for e in call_graph(text) if e.whole or not e.cycle]


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
    total, per = frames_per_name(folded)
    want = entries(text)
    main = named(want, "name")["main"]
    grand = sum(e.self_s for e in want)  # every second of self time sits in one entry
    assert math.isclose(total / 1e6, grand, abs_tol=0.005 * len(want) + 0.011)
    assert abs(per["main"] / 1e6 - (main.self_s + main.children_s)) <= 0.011
    assert check_frames(want, per, 0.011) >= 5


def test_json_certainty_against_gprof(cycles: Built) -> None:
    doc = json.loads(gmonlens(cycles, "report", "--json"))
    text = gprof_b(cycles)
    period = doc["sample_period"]
    by_index = {r["index"]: r for r in doc["routines"]}
    for e in entries(text):
        r = by_index.get(e.index)
        if r is None:
            continue  # a cycle as a whole
        assert r["display_name"] == e.name, e
        assert abs(r["self_samples"] * period - e.self_s) <= 0.005 + 1e-9
        assert math.isclose(r["self_stderr_seconds"], math.sqrt(r["self_samples"]) * period)
        assert math.isclose(r["total_stderr_seconds"], math.sqrt(r["total_seconds"] / period) * period)
        assert 0 <= r["children_estimated_seconds"] <= r["children_seconds"] + 1e-9
    by_name = named(doc["routines"])
    # the diamond: top calls l and r (one caller each: exact), whose callees (bottom: l and r;
    # spin: everyone) are split, so top's children are estimated but for l's and r's self time
    top, left, right = by_name["top"], by_name["l"], by_name["r"]
    exact = left["self_seconds"] + right["self_seconds"]
    assert math.isclose(top["children_estimated_seconds"], top["children_seconds"] - exact, rel_tol=1e-9)
    assert by_name["bottom"]["callers"] == 2 and left["callers"] == 1
    assert {h["code"] for h in doc["health"]} <= {"few_samples", "sources_newer", "binary_changed"}
