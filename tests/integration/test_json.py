"""`gmonlens report --json`: the versioned contract, checked against gprof's own text on a real
profile (self/children seconds, calls, recursive calls, cycles, percents, static arcs)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from gprof_harness import GMONLENS, Built, Program, Workshop, gmonlens_env

CYCLES = Program("cycles", ("cycles.c",), args=("40000",))
RECURSION = Program("recursion", ("recursion.c",), args=("30000",))


def report_json(built: Built, *flags: str) -> dict[str, Any]:
    argv = [str(GMONLENS), "report", "--json", *flags, str(built.binary), str(built.gmon["out"])]
    out = subprocess.run(argv, capture_output=True, check=True, env=gmonlens_env(), cwd=built.dir)
    data: dict[str, Any] = json.loads(out.stdout)
    return data


def gprof_text(built: Built, *flags: str) -> str:
    argv = ["gprof", "-b", *flags, str(built.binary), str(built.gmon["out"])]
    return subprocess.run(argv, capture_output=True, check=True, text=True, cwd=built.dir).stdout


PRIMARY = re.compile(
    r"^\[(\d+)\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(?:(\d+)(?:\+(\d+))?)?\s+(\S.*?) \[\d+\]$"
)


def primary_lines(text: str) -> dict[int, tuple[float, float, float, int, int, str]]:
    """gprof's primary call-graph lines: index -> (percent, self, children, calls, self calls, name)."""
    out = {}
    for line in text.splitlines():
        m = PRIMARY.match(line)
        if m:
            idx, pct, s, c, calls, rec, name = m.groups()
            out[int(idx)] = (float(pct), float(s), float(c), int(calls or 0), int(rec or 0), name)
    return out


@pytest.fixture(scope="module")
def cycles(workshop: Workshop) -> Built:
    return workshop.get(CYCLES)


def test_schema_and_totals(cycles: Built) -> None:
    data = report_json(cycles)
    assert data["schema"] == "gmonlens-profile/1"
    assert data["hz"] == 100 and data["sample_period"] == pytest.approx(0.01)
    flat_total = re.search(r"for [\d.]+% of ([\d.]+) seconds", gprof_text(cycles))
    assert flat_total is not None
    assert f"{data['propagated_seconds']:.2f}" == flat_total.group(1)
    for key in ("routines", "arcs", "cycles", "problems", "total_seconds", "static_call_graph"):
        assert key in data


def test_routines_match_gprof_call_graph(cycles: Built) -> None:
    data = report_json(cycles)
    by_index = {r["index"]: r for r in data["routines"]}
    cyc_by_index = {c["index"]: c for c in data["cycles"]}
    lines = primary_lines(gprof_text(cycles, "-q"))
    assert lines, "no primary lines parsed from gprof"
    for idx, (pct, self_s, child_s, calls, rec, name) in lines.items():
        if name.startswith("<cycle"):
            c = cyc_by_index[idx]
            assert (f"{c['self_seconds']:.2f}", f"{c['children_seconds']:.2f}") == (
                f"{self_s:.2f}",
                f"{child_s:.2f}",
            )
            assert (c["calls"], c["internal_calls"]) == (calls, rec)
            continue
        r = by_index[idx]
        assert r["display_name"] == re.sub(r" <cycle \d+>$", "", name)
        assert f"{r['percent']:.1f}" == f"{pct:.1f}", name
        assert f"{r['self_seconds']:.2f}" == f"{self_s:.2f}", name
        assert f"{r['children_seconds']:.2f}" == f"{child_s:.2f}", name
        assert (r["calls"], r["recursive_calls"]) == (calls, rec), name
        cyc = re.search(r"<cycle (\d+)>", name)
        assert r["cycle"] == (int(cyc.group(1)) if cyc else None)


def test_arcs_and_cycles_refer_to_routines(cycles: Built) -> None:
    data = report_json(cycles)
    ids = {r["id"] for r in data["routines"]}
    assert data["arcs"]
    for a in data["arcs"]:
        assert a["caller"] in ids and a["callee"] in ids
        assert a["static"] is False and a["count"] > 0
        assert sum(n for _, n in a["call_sites"]) == a["count"]
    assert data["cycles"], "cycles.c has cycles"
    for c in data["cycles"]:
        assert set(c["members"]) <= ids and len(c["members"]) >= 2


def test_static_arcs_are_marked(workshop: Workshop) -> None:
    built = workshop.get(RECURSION)
    plain = report_json(built)
    static = report_json(built, "-c")
    assert static["static_call_graph"] is True and plain["static_call_graph"] is False
    names = {r["id"]: r["name"] for r in static["routines"]}
    extra = [a for a in static["arcs"] if a["static"]]
    assert extra, "recursion.c has calls that never ran (never_called -> leaf)"
    assert all(a["count"] == 0 and a["self_seconds"] == 0 and a["call_sites"] == [] for a in extra)
    assert ("never_called", "leaf") in {(names[a["caller"]], names[a["callee"]]) for a in extra}
    assert not any(a["static"] for a in plain["arcs"])


def test_json_has_no_text_report(cycles: Built, tmp_path: Path) -> None:
    argv = [str(GMONLENS), "report", "--json", str(cycles.binary), str(cycles.gmon["out"])]
    out = subprocess.run(argv, capture_output=True, check=True, text=True, env=gmonlens_env(), cwd=tmp_path)
    assert out.stdout.lstrip().startswith("{") and "Flat profile" not in out.stdout
