"""gprof folds GCC clones whose names its filter rejects (`refresh.part.0`, `checked.cold`, ...)
into the routine before them: gmonlens keeps gprof's figures and says what they hold
(`Profile.folded`, `report --json`'s `folded`); `--clones-apart` shows the clones under their own
names (figures then not gprof's)."""

from __future__ import annotations

import json
import struct
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
    assert abs(sum(f["calls_share"] for f in into) - 1.0) < 1e-9
    # The samples: the clones' shares, plus frame_dummy's own bytes' share of the histogram bins
    # that straddle its end (bins of ~3.99 bytes are not aligned to routines), which is what
    # `--clones-apart` leaves to frame_dummy by the same overlap rule.
    apart = _json(["--clones-apart", str(b.binary), str(b.gmon["out"])], b.dir)
    own = {r["name"]: r for r in apart["routines"]}.get("frame_dummy", {"self_seconds": 0.0})
    clones = sum(f["self_seconds"] for f in into)
    assert clones > 0
    assert abs(clones + own["self_seconds"] - owner["self_seconds"]) < 1e-9
    flat = _flat(gprof(NATIVE, ["-b", "-p", str(b.binary), str(b.gmon["out"])], b.dir).stdout)
    assert flat["frame_dummy"][1] == str(owner["calls"])  # the figures stay gprof's


def test_clones_apart_shows_them_under_their_own_names(workshop: Workshop) -> None:
    b = workshop.get(CASES["opt2"].program)
    doc = _json(["--clones-apart", str(b.binary), str(b.gmon["out"])], b.dir)
    names = {r["name"]: r for r in doc["routines"]}
    assert doc["folded"] == []
    assert names["refresh.part.0"]["calls"] > 0 and names["scan.constprop.0"]["calls"] > 0
    # frame_dummy itself is never called: what it keeps is only its bytes' share of the bins that
    # straddle its end (checked against the folded figures in the test above)
    own = names.get("frame_dummy")
    assert own is None or not own["calls"], own
    text = gmonlens(["-b", "-p", "--clones-apart", str(b.binary), str(b.gmon["out"])], b.dir)
    assert text.returncode == 0 and b"refresh.part.0" in text.stdout


def test_bins_straddling_a_clone_keep_the_owners_share(workshop: Workshop, tmp_path: Path) -> None:
    """A histogram bin (~3.99 bytes, not aligned to routines) across frame_dummy's end and
    refresh.part.0's start: the overlap rule gives frame_dummy's own bytes part of it, so the owner's
    self time is its clones' shares plus that part, which `--clones-apart` leaves to frame_dummy."""
    b = workshop.get(CASES["opt2"].program)
    data = bytearray(b.gmon["out"].read_bytes())
    assert data[:4] == b"gmon" and data[20] == 0, "a GNU gmon.out whose first record is the histogram"
    low, high, n = struct.unpack_from("<QQI", data, 21)
    doc = _json([str(b.binary), str(b.gmon["out"])], b.dir)
    folded = {f["name"]: f for f in doc["folded"]}
    edge = folded["refresh.part.0"]["address"]  # frame_dummy's end
    width = (high - low) / n
    i = int((edge - low) / width)
    assert low + i * width < edge < low + (i + 1) * width, "the bin at the edge straddles it"
    struct.pack_into("<H", data, 61 + 2 * i, 5000)  # counts follow the 41-byte record header
    (tmp_path / "gmon.out").write_bytes(data)
    gmon = str(tmp_path / "gmon.out")
    doc = _json([str(b.binary), gmon], b.dir)
    by_id = {r["id"]: r for r in doc["routines"]}
    into = [f for f in doc["folded"] if by_id.get(f["routine"], {}).get("name") == "frame_dummy"]
    owner = by_id[into[0]["routine"]]
    apart = {r["name"]: r for r in _json(["--clones-apart", str(b.binary), gmon], b.dir)["routines"]}
    own = apart["frame_dummy"]["self_seconds"]
    assert own > 0 and not apart["frame_dummy"]["calls"]
    assert abs(sum(f["self_seconds"] for f in into) + own - owner["self_seconds"]) < 1e-9
    flat = _flat(gprof(NATIVE, ["-b", "-p", str(b.binary), gmon], b.dir).stdout)
    assert float(flat["frame_dummy"][0]) == round(owner["self_seconds"], 2)


def test_every_folded_routine_is_listed(workshop: Workshop) -> None:
    """`folded[].routine` names a routine of `routines[]`, also when neither the routine nor its
    clones ran (a cold clone of a routine never called: its owner has no figures)."""
    b = workshop.get(CASES["opt2"].program)
    doc = _json([str(b.binary), str(b.gmon["out"])], b.dir)
    ids = {r["id"] for r in doc["routines"]}
    assert doc["folded"]
    missing = [f for f in doc["folded"] if f["routine"] not in ids]
    assert not missing, missing
