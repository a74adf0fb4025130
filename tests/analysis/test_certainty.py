"""Certainty figures and the flame graph on generated call graphs (cycles, several callers,
spontaneous routines, -c arcs, -E/-F): the flame graph's frames add up to gprof's figures, the
estimated part follows its definition (a reference written from the definition's words), the error
fields follow their formulas, and health names what the profile lacks."""

from __future__ import annotations

import math
from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from gmonlens.common.model import GmonData, HistogramRecord, Profile, RawArc, Routine, Symbol
from gmonlens.common.options import AnalysisOptions, SymSpec, resolve_tables
from gmonlens.output.flame import flame_tree, folded
from gmonlens.output.report_json import to_json
from gmonlens.profile.callgraph import compute_profile
from gmonlens.profile.certainty import certainty, profile_health, thread_starter
from gmonlens.profile.symbols import SymbolTable

BASE, SIZE = 0x1000, 0x100


def build(
    ticks: list[int],
    arcs: list[tuple[int, int, int]],
    static: tuple[tuple[int, int], ...] = (),
    hz: int = 100,
    excl_time: tuple[int, ...] = (),
    incl_time: tuple[int, ...] = (),
    split_bins: bool = False,
) -> Profile:
    """A profile of routines f0..f{n-1} (SIZE bytes each) with `ticks[i]` samples in f{i} and
    `(caller, callee, count)` arcs; `split_bins` uses bins that straddle routines."""
    n = len(ticks) + 1  # a last routine without samples: gprof never credits the last one
    ticks = [*ticks, 0]
    names = [f"f{i}" for i in range(n)]
    syms = tuple(Symbol(names[i], BASE + SIZE * i, BASE + SIZE * (i + 1) - 1, True, False) for i in range(n))
    table = SymbolTable(syms, tuple(s.address for s in syms))
    if split_bins:  # 3 bins per 2 routines: bins cross routine boundaries
        nb = 3 * n // 2 or 1
        counts = [0] * nb
        for i, t in enumerate(ticks):
            counts[min(nb - 1, (3 * i) // 2)] += t
    else:
        counts = list(ticks)
    hist = HistogramRecord(BASE, BASE + SIZE * n, tuple(counts), hz)
    raw = tuple(RawArc(BASE + SIZE * p + 0x10, BASE + SIZE * c + 4, k) for p, c, k in arcs)
    gmon = GmonData((hist,), raw, hz, has_histogram=True, has_call_graph=True)
    opts = AnalysisOptions(
        excl_time=tuple(SymSpec(name=names[i]) for i in excl_time),
        incl_time=tuple(SymSpec(name=names[i]) for i in incl_time),
    )
    tables = resolve_tables(opts, syms, names)
    return compute_profile(table, gmon, tables, names, static_arcs=static)


@st.composite
def graphs(draw: st.DrawFn, max_n: int = 7) -> dict[str, object]:
    n = draw(st.integers(1, max_n))
    ticks = draw(st.lists(st.integers(0, 400), min_size=n, max_size=n))
    pairs = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.integers(0, 50))
    arcs = draw(st.lists(pairs, max_size=3 * n))
    static = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=2))
    excl = draw(st.lists(st.integers(0, n - 1), max_size=1)) if draw(st.booleans()) else []
    incl = draw(st.lists(st.integers(0, n - 1), max_size=1)) if draw(st.integers(0, 5)) == 0 else []
    return {
        "ticks": ticks,
        "arcs": arcs,
        "static": tuple(static),
        "hz": draw(st.sampled_from([60, 100, 1000])),
        "excl_time": tuple(excl),
        "incl_time": tuple(incl),
        "split_bins": draw(st.booleans()),
    }


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def node_key(p: Profile, rid: int) -> tuple[str, int]:
    r = p.routines[rid]
    return ("c", r.cycle) if r.cycle else ("r", rid)


def total_of(r: Routine) -> float:
    return r.total_ticks


def self_of(r: Routine) -> float:
    return r.prop_self_ticks


def node_figures(p: Profile) -> dict[tuple[str, int], tuple[float, float]]:
    """gprof's (total, self) of every node, in ticks."""
    out = {("r", r.id): (r.total_ticks, r.prop_self_ticks) for r in p.routines if not r.cycle}
    for c in p.cycles:  # gprof's whole, or its members' sum
        whole = (c.total_ticks, c.prop_self_ticks)
        members = tuple(sum(f(p.routines[m]) for m in c.members) for f in (total_of, self_of))
        if whole[1] > 0:  # else no caller outside may pass it a share (gprof's fraction 0)
            assert close(whole[0], members[0]) and close(whole[1], members[1])
        out[("c", c.number)] = members
    return out


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_flame_frames_add_up_to_gprof(g: dict[str, object]) -> None:
    p = build(**g)  # type: ignore[arg-type]
    tree = flame_tree(p, min_fraction=0.0)
    assert not tree.truncated
    assert close(sum(f.width for f in tree.frames if f.parent < 0), p.print_ticks)
    width: dict[tuple[str, int], float] = defaultdict(float)
    selfs: dict[tuple[str, int], float] = defaultdict(float)
    kids: dict[int, float] = defaultdict(float)
    for f in tree.frames:
        assert not f.is_other
        key = ("c", f.cycle) if f.cycle else ("r", f.routine)
        width[key] += f.width
        selfs[key] += f.self_ticks
        if f.parent >= 0:
            kids[f.parent] += f.width
            assert tree.frames[f.parent].depth == f.depth - 1
    for i, f in enumerate(tree.frames):
        assert close(f.width, f.self_ticks + kids[i])
    for key, (total, pself) in node_figures(p).items():
        assert close(width[key], total), key
        assert close(selfs[key], pself), key


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_flame_opened_cycles_add_up_to_gprof(g: dict[str, object]) -> None:
    """Cycles opened into their members (issue 27 item 8): each member's frames add up to its line
    in gprof's cycle entry (self + children from outside the cycle), the cycle's frames to the
    whole with no self time of their own; member frames are marked estimated, with their cycle."""
    p = build(**g)  # type: ignore[arg-type]
    tree = flame_tree(p, min_fraction=0.0, open_cycles=True)
    closed = flame_tree(p, min_fraction=0.0)
    assert close(sum(f.width for f in tree.frames if f.parent < 0), p.print_ticks)
    width: dict[tuple[str, int], float] = defaultdict(float)
    selfs: dict[tuple[str, int], float] = defaultdict(float)
    kids: dict[int, float] = defaultdict(float)
    for f in tree.frames:
        key = ("c", f.cycle) if f.cycle else ("r", f.routine)
        width[key] += f.width
        selfs[key] += f.self_ticks
        if f.parent >= 0:
            kids[f.parent] += f.width
        if f.cycle:
            assert f.self_ticks == 0 and f.member_of == 0
        if f.member_of:
            parent = tree.frames[f.parent]
            assert parent.cycle == f.member_of == p.routines[f.routine].cycle and f.estimated
        elif f.routine >= 0:
            assert p.routines[f.routine].cycle == 0  # members appear only inside their cycle's frame
    for i, f in enumerate(tree.frames):
        assert close(f.width, f.self_ticks + kids[i])
    for key, (total, _pself) in node_figures(p).items():
        assert close(width[key], total), key
    for c in p.cycles:
        for m in c.members:
            r = p.routines[m]
            assert close(width[("r", m)], r.total_ticks) and close(selfs[("r", m)], r.prop_self_ticks)
    if not p.cycles:
        assert tree == closed


@settings(max_examples=200, deadline=None)
@given(graphs(), st.sampled_from([0.01, 0.1, 0.3]))
def test_flame_folding_keeps_widths(g: dict[str, object], fraction: float) -> None:
    p = build(**g)  # type: ignore[arg-type]
    tree = flame_tree(p, min_fraction=fraction)
    assert close(sum(f.width for f in tree.frames if f.parent < 0), p.print_ticks)
    kids: dict[int, float] = defaultdict(float)
    others: dict[int, int] = defaultdict(int)
    for f in tree.frames:
        if f.parent >= 0:
            kids[f.parent] += f.width
        if f.is_other:
            others[f.parent] += 1
        else:
            assert f.width >= fraction * tree.total_ticks * (1 - 1e-12)
    assert all(v == 1 for v in others.values())
    for i, f in enumerate(tree.frames):
        assert close(f.width, f.self_ticks + kids[i])
    # folded stacks: integer microseconds adding up to the total
    text = folded(p, tree)
    values = [int(line.rsplit(" ", 1)[1]) for line in text.splitlines()]
    assert sum(values) == round(tree.total_ticks * 1_000_000 / p.hz)


def reference_estimates(p: Profile) -> tuple[dict[int, float], dict[int, float]]:
    """children_estimated ticks from the definition's words: per routine, and per cycle."""
    timed = [
        a
        for a in p.arcs
        if a.count > 0
        and not a.is_static
        and a.parent != a.child
        and not (p.routines[a.parent].cycle and p.routines[a.parent].cycle == p.routines[a.child].cycle)
    ]

    def callee(a_child: int) -> tuple[str, int]:
        return node_key(p, a_child)

    def callers_as_routines(y: tuple[str, int]) -> set[int]:
        return {a.parent for a in timed if callee(a.child) == y}

    def callers_as_nodes(y: tuple[str, int]) -> set[tuple[str, int]]:
        return {node_key(p, a.parent) for a in timed if callee(a.child) == y}

    memo: dict[tuple[str, int], float] = {}

    def share(y: tuple[str, int], along: float) -> float:
        """The share of y's total its only caller's arcs carry (1 unless -E/-F stop it)."""
        whole = p.cycles[y[1] - 1].total_ticks if y[0] == "c" else p.routines[y[1]].total_ticks
        return min(1.0, along / whole) if whole > 0 else 0.0

    def est_node(x: tuple[str, int]) -> float:
        if x in memo:
            return memo[x]
        mine = [a for a in timed if node_key(p, a.parent) == x]
        total = 0.0
        for y in dict.fromkeys(callee(a.child) for a in mine):
            along = sum(a.self_ticks + a.child_ticks for a in mine if callee(a.child) == y)
            total += along if len(callers_as_nodes(y)) > 1 else est_node(y) * share(y, along)
        memo[x] = total
        return total

    per_routine: dict[int, float] = {}
    for r in p.routines:
        if not r.cycle:
            per_routine[r.id] = est_node(("r", r.id))
            continue
        mine = [a for a in timed if a.parent == r.id]
        total = 0.0
        for y in dict.fromkeys(callee(a.child) for a in mine):
            along = sum(a.self_ticks + a.child_ticks for a in mine if callee(a.child) == y)
            total += along if len(callers_as_routines(y)) > 1 else est_node(y) * share(y, along)
        per_routine[r.id] = total
    return per_routine, {c.number: est_node(("c", c.number)) for c in p.cycles}


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_estimated_part_and_error_fields(g: dict[str, object]) -> None:
    p = build(**g)  # type: ignore[arg-type]
    cert = certainty(p)
    per = 1.0 / p.hz
    want_r, want_c = reference_estimates(p)
    for r in p.routines:
        c = cert.routines[r.id]
        assert close(c.children_estimated_seconds, want_r[r.id] * per)
        assert c.children_estimated_seconds <= r.prop_child_ticks * per * (1 + 1e-9) + 1e-12
        assert c.self_samples == r.self_ticks
        assert close(c.self_stderr_seconds, math.sqrt(r.self_ticks) * per)
        assert close(c.total_stderr_seconds, math.sqrt(r.total_ticks) * per)
        assert (c.split is None) == (c.children_estimated_seconds == 0)
    for cy in p.cycles:
        assert close(cert.cycles[cy.number - 1].children_estimated_seconds, want_c[cy.number] * per)
    doc = to_json(p)
    for row in doc["routines"]:
        assert row["self_samples"] == p.routines[row["id"]].self_ticks
        assert close(row["children_estimated_seconds"], want_r[row["id"]] * per)


@settings(max_examples=200, deadline=None)
@given(graphs())
def test_exact_frames_carry_no_estimate(g: dict[str, object]) -> None:
    """Under a root frame of full width, the frames where the path first becomes an estimate add up
    to the root's children_estimated part."""
    p = build(**g)  # type: ignore[arg-type]
    cert = certainty(p)
    tree = flame_tree(p, min_fraction=0.0)
    first: dict[int, float] = defaultdict(float)
    root_of: list[int] = []
    for i, f in enumerate(tree.frames):
        root_of.append(i if f.parent < 0 else root_of[f.parent])
        if f.estimated and not tree.frames[f.parent].estimated:
            first[root_of[i]] += f.width
    for i, f in enumerate(tree.frames):
        if f.parent >= 0:
            continue
        full = p.cycles[f.cycle - 1].total_ticks if f.cycle else p.routines[f.routine].total_ticks
        if not close(f.width, full):
            continue
        c = cert.cycles[f.cycle - 1] if f.cycle else cert.routines[f.routine]
        assert close(first[i] / p.hz, c.children_estimated_seconds)


def test_single_caller_chain_is_exact_and_shared_callee_is_estimated() -> None:
    # f0 -> f1 -> f2 (one caller each): exact; f0 -> f3, f1 -> f3: f3's time is split
    p = build([0, 10, 20, 40], [(0, 1, 1), (1, 2, 1), (0, 3, 1), (1, 3, 3)])
    cert = certainty(p)
    f0, f1 = cert.routines[0], cert.routines[1]
    assert close(f1.children_estimated_seconds, 0.30)  # f1's share of f3: 3/4 of 0.40 s
    assert close(f0.children_estimated_seconds, 0.10 + 0.30)  # its own f3 share + f1's estimate
    assert f0.split is not None and f0.split.callee == 3 and f0.split.callers == 2
    est = {(a.parent, a.child): cert.estimated_arc(p, i) for i, a in enumerate(p.arcs)}
    assert est == {(0, 1): False, (1, 2): False, (0, 3): True, (1, 3): True}


def test_health_few_no_samples_no_arcs_threads() -> None:
    few = profile_health(build([5, 5], [(0, 1, 1)]))
    assert [h.code for h in few] == ["few_samples"] and "gmon.out" in few[0].fix
    assert profile_health(build([200, 5], [(0, 1, 1)])) == []
    codes = [h.code for h in profile_health(build([0, 0], []), thread_starter(["main", "clone@GLIBC_2.2.5"]))]
    assert codes == ["no_samples", "no_arcs", "threads"]
    assert thread_starter(["pthread_create@GLIBC_2.34"]) == "pthread_create"
    assert thread_starter(["_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateEEPFvvE"]) is not None
    assert thread_starter(["main", "pthread_join@GLIBC_2.34"]) is None


def test_json_lists_the_routines_clones_are_folded_into() -> None:
    """`folded[].routine` is always an id of `routines[]`: f2 (no time, no calls, no arcs) holds
    a cold clone that never ran."""
    from dataclasses import replace

    from gmonlens.common.model import FoldedSymbol

    p = build([5, 3, 0, 0], [(0, 1, 4)])
    clone = FoldedSymbol(2, "f2.cold", BASE + SIZE * 2 + 0x80, BASE + SIZE * 3 - 1, 0.0, 0)
    doc = to_json(replace(p, folded=(clone,)))
    ids = {r["id"] for r in doc["routines"]}
    assert doc["folded"][0]["routine"] == 2 and 2 in ids
    assert 3 not in ids  # a routine without figures and without clones stays out
