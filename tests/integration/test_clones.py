"""gprof folds GCC clones whose names its filter rejects (`refresh.part.0`, `checked.cold`, ...)
into the routine before them: gmonlens keeps gprof's figures and says what they hold
(`Profile.folded`, `report --json`'s `folded`); `--clones-apart` shows the clones under their own
names (figures then not gprof's)."""

from __future__ import annotations

import json
from pathlib import Path

from gprof_harness import NATIVE, Workshop, gmonlens, gprof
from test_gprof_compare import CASES


def _json(args: list[str], cwd: Path) -> dict:  # type: ignore[type-arg]
    r = gmonlens(["--json", *args], cwd)
    assert r.returncode == 0, r.err
    return json.loads(r.stdout)


def _flat(text: bytes) -> dict[str, tuple[str, str]]:
    """name -> (self seconds, calls) from gprof's flat profile (`-p -b`)."""
    out = {}
    for line in text.decode().splitlines()[5:]:
        f = line.split()
        if len(f) >= 4:
            out[f[-1]] = (f[2], f[3] if len(f) > 4 else "")
    return out


def test_folded_clones_are_named_with_their_share(workshop: Workshop) -> None:
    b = workshop.get(CASES["opt2"].program)
    doc = _json([str(b.binary), str(b.gmon["out"])], b.dir)
    by_id = {r["id"]: r for r in doc["routines"]}
    folded = {f["name"]: f for f in doc["folded"]}
    # gprof: frame_dummy gets refresh.part.0's and scan.constprop.0's samples and calls
    assert {"refresh.part.0", "scan.constprop.0", "spin_cfg.constprop.0.isra.0"} <= set(folded), folded
    owner = by_id[folded["refresh.part.0"]["routine"]]
    assert owner["name"] == "frame_dummy"
    into = [f for f in doc["folded"] if f["routine"] == owner["id"]]
    assert sum(f["calls"] for f in into) == owner["calls"]  # frame_dummy itself is never called
    assert abs(sum(f["self_seconds"] for f in into) - owner["self_seconds"]) < 1e-9
    assert abs(sum(f["calls_share"] for f in into) - 1.0) < 1e-9
    flat = _flat(gprof(NATIVE, ["-b", "-p", str(b.binary), str(b.gmon["out"])], b.dir).stdout)
    assert flat["frame_dummy"][1] == str(owner["calls"])  # the figures stay gprof's


def test_clones_apart_shows_them_under_their_own_names(workshop: Workshop) -> None:
    b = workshop.get(CASES["opt2"].program)
    doc = _json(["--clones-apart", str(b.binary), str(b.gmon["out"])], b.dir)
    names = {r["name"]: r for r in doc["routines"]}
    assert doc["folded"] == []
    assert names["refresh.part.0"]["calls"] > 0 and names["scan.constprop.0"]["calls"] > 0
    assert "frame_dummy" not in names  # no figures of its own left
    text = gmonlens(["-b", "-p", "--clones-apart", str(b.binary), str(b.gmon["out"])], b.dir)
    assert text.returncode == 0 and b"refresh.part.0" in text.stdout
