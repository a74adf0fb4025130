"""gmonlens.profile.diff on hand-made routines: matching rules, the noise test, --fail-over."""

from __future__ import annotations

import math

from gmonlens.common.model import Profile, Routine
from gmonlens.output.diff_report import render_text, to_json
from gmonlens.profile.diff import change, diff_profiles, failures, match_routines, z_score
from routine_keys import named


def routine(
    rid: int, name: str, ticks: float = 0.0, calls: int = 0, static: bool = False, file: str | None = None
) -> Routine:
    return Routine(
        id=rid, name=name, display_name=name, address=0x1000 + 16 * rid, end_address=0x100F + 16 * rid,
        is_static=static, is_function=True, file=file, line=1 if file else 0, self_ticks=ticks,
        child_ticks=0.0, prop_self_ticks=ticks, prop_child_ticks=0.0, calls=calls, self_calls=0,
        cycle=0, index=rid + 1, printed=True, in_flat=True, fract=1.0,
    )  # fmt: skip


def profile(routines: list[Routine], hz: int = 100) -> Profile:
    n = len(routines)
    total = sum(r.self_ticks for r in routines)
    return Profile(
        routines=tuple(routines), arcs=(), cycles=(), graph_order=(), parents=((),) * n, children=((),) * n,
        hz=hz, dimension="seconds", dimension_abbrev="s", scale=1.0, total_ticks=total, print_ticks=total,
        has_histogram=True, has_call_graph=True,
    )  # fmt: skip


def test_z_is_the_poisson_normal_approximation() -> None:
    assert z_score(100, 0.01, 100, 0.01) == 0.0
    assert math.isclose(z_score(16, 0.01, 36, 0.01), 20 / math.sqrt(52))
    assert z_score(0, 0.01, 0, 0.01) == 0.0
    # different sample rates: 100 samples at 100 Hz == 1000 samples at 1000 Hz (1 s each)
    assert math.isclose(z_score(100, 0.01, 1000, 0.001), 0.0, abs_tol=1e-12)
    assert change(100, 0.01, 1000, 0.001, 1.0, 3.0).verdict == "noise"
    # 9 samples out of nothing is just 3 standard errors
    assert change(0, 0.01, 9, 0.01, 1.0, 3.0).verdict == "up"
    assert change(0, 0.01, 8, 0.01, 1.0, 3.0).verdict == "noise"
    assert change(50, 0.01, 10, 0.01, 1.0, 3.0).verdict == "down"


def test_matching_globals_statics_clones() -> None:
    base = [
        routine(0, "main"),
        routine(1, "helper", static=True, file="/b1/src/a.c"),
        routine(2, "helper", static=True, file="/b1/src/b.c"),
        routine(3, "work.constprop.0"),
        routine(4, "vanished"),
        routine(5, "spec"),
    ]
    new = [
        routine(0, "spec.isra.0"),
        routine(1, "helper", static=True, file="/b2/src/b.c"),
        routine(2, "work.constprop.1"),
        routine(3, "main"),
        routine(4, "helper", static=True, file="/b2/src/a.c"),
        routine(5, "fresh"),
    ]
    pairs, gone, born = match_routines(base, new)
    got = {(b.name, b.file, n.file, status) for b, n, status in pairs}
    assert ("main", None, None, "matched") in got
    assert ("helper", "/b1/src/a.c", "/b2/src/a.c", "matched") in got  # statics by file (base name)
    assert ("helper", "/b1/src/b.c", "/b2/src/b.c", "matched") in got
    renamed = {(b.name, n.name) for b, n, s in pairs if s == "renamed"}
    assert renamed == {("work.constprop.0", "work.constprop.1"), ("spec", "spec.isra.0")}
    assert [r.name for r in gone] == ["vanished"]
    assert [r.name for r in born] == ["fresh"]


def test_diff_rows_sorted_and_failures() -> None:
    base = profile([routine(0, "main", 0, 0), routine(1, "slow", 16, 10), routine(2, "same", 400, 5),
                    routine(3, "old", 5, 1)])  # fmt: skip
    new = profile([routine(0, "main", 0, 0), routine(1, "slow", 64, 10), routine(2, "same", 420, 5),
                   routine(3, "fresh", 30, 1)])  # fmt: skip
    d = diff_profiles(base, new)
    names = [r.name for r in d.routines]
    assert names[0] == "slow"
    assert "main" not in names  # no figures on either side
    by = named(d.routines, "name")
    assert by["slow"].self.verdict == "up" and by["same"].self.verdict == "noise"
    assert by["old"].status == "gone" and by["fresh"].status == "new"
    assert by["fresh"].self.verdict == "up"
    failed = failures(d, 50.0)
    assert [r.name for r, _ in failed] == ["slow"]  # new routines do not fail: their callers do
    assert failures(d, 400.0) == []
    text = render_text(d, ("a", ["g1"]), ("b", ["g2"]))
    assert "fresh (new)" in text and "old (gone)" in text
    js = to_json(d, ("a", ["g1"]), ("b", ["g2"]), failed)
    assert js["schema"] == "gmonlens-diff/1" and js["failed"][0]["name"] == "slow"
    assert js["routines"][0]["self"]["delta"] == 0.48


def test_normalize_compares_shares() -> None:
    # the new run is twice as long in every routine: no change as shares
    base = profile([routine(0, "a", 100), routine(1, "b", 300)])
    new = profile([routine(0, "a", 200), routine(1, "b", 600)])
    assert {r.self.verdict for r in diff_profiles(base, new).routines} == {"up"}
    assert {r.self.verdict for r in diff_profiles(base, new, normalize=True).routines} == {"noise"}
