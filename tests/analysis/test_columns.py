"""The engine's column tables (model.RawArcs, ArcTable, GraphOrder, Groups; certainty's
CertaintyTable; slicesort): each reads back the records it was made from, equals them, and its
plain form (the server's disk cache) round-trips or is refused with ValueError."""

from __future__ import annotations

import random
import threading

import pytest

from gmonlens.common.model import (
    Arc,
    ArcTable,
    GraphEntry,
    GraphOrder,
    Groups,
    RawArc,
    RawArcs,
    as_table,
    columns,
)
from gmonlens.common.slicesort import SLICE, sorted_in_slices

ARCS = [
    Arc(0, 1, 3, 1.5, 0.25, False, ((0x1010, 3),)),
    Arc(1, 1, 2, 0.0, 0.0, False, ((0x1020, 1), (0x1030, 1))),
    Arc(2, 0, 0, 0.0, 0.0, True, ()),
]


def test_raw_arcs_read_back_and_slice() -> None:
    recs = [RawArc(0x10, 0x20, 1), RawArc(0x11, 0x21, 2**40), RawArc(0x12, 0x22, 0)]
    table = RawArcs((a.from_pc, a.self_pc, a.count) for a in recs)
    assert list(table) == recs and table == tuple(recs) and table[1] == recs[1] and table[-1] == recs[2]
    assert table[1:] == recs[1:] and isinstance(table[1:], RawArcs)
    assert RawArcs.joined([table[:1], tuple(recs[1:])]) == recs
    assert RawArcs.joined([table]) is table
    assert columns(recs) == columns(table)
    assert RawArcs() == () and RawArcs() != recs


def test_arc_table_reads_back_and_round_trips() -> None:
    table = ArcTable(ARCS)
    assert list(table) == ARCS and table == ARCS and table[2] == ARCS[2] and table[-1] == ARCS[2]
    assert as_table(table) is table and as_table(tuple(ARCS)) == table
    again = ArcTable.from_plain(table.to_plain(), routines=3)
    assert again == table and list(again) == ARCS
    assert ArcTable.from_plain(ArcTable().to_plain(), routines=0) == ()


@pytest.mark.parametrize(
    "spoil",
    [
        lambda v: v[:8],  # a column missing
        lambda v: (v[0][:8], *v[1:]),  # parents shorter than the rest
        lambda v: (*v[:2], (*v[2], 1), *v[3:]),  # one count too many
        lambda v: (*v[:5], b"\x02\x00\x00", *v[6:]),  # a static flag that is not 0 or 1
        lambda v: (*v[:8], ("1", 1, 1, 1)),  # a site count that is not an int
    ],
)
def test_arc_table_refuses_wrong_shapes(spoil: object) -> None:
    plain = ArcTable(ARCS).to_plain()
    with pytest.raises(ValueError):
        ArcTable.from_plain(spoil(plain), routines=3)  # type: ignore[operator]


def test_arc_table_refuses_routine_ids_out_of_range() -> None:
    with pytest.raises(ValueError):
        ArcTable.from_plain(ArcTable(ARCS).to_plain(), routines=2)


def test_graph_order_and_groups_read_back_and_round_trip() -> None:
    entries = [GraphEntry(2, 0), GraphEntry(-1, 1), GraphEntry(0, 0), GraphEntry(1, 0)]
    order = GraphOrder(entries)
    assert list(order) == entries and order == tuple(entries) and order[1] == GraphEntry(-1, 1)
    assert GraphOrder.from_plain(order.to_plain(), routines=3, cycles=1) == entries
    for routines, cycles in ((2, 1), (3, 0)):
        with pytest.raises(ValueError):
            GraphOrder.from_plain(order.to_plain(), routines=routines, cycles=cycles)
    groups = Groups([(0, 2), (), (1,)])
    assert list(groups) == [(0, 2), (), (1,)] and groups[0] == (0, 2) and groups[-1] == (1,)
    assert Groups.from_plain(groups.to_plain(), groups=3, bound=3) == groups
    for n, bound in ((2, 3), (3, 2)):
        with pytest.raises(ValueError):
            Groups.from_plain(groups.to_plain(), groups=n, bound=bound)
    assert Groups.by_key([2, 0, 2, 1], 4) == [(1,), (3,), (0, 2), ()]


@pytest.mark.parametrize("reverse", [False, True])
def test_sorted_in_slices_is_sorted(reverse: bool) -> None:
    rng = random.Random(7)
    items = [(rng.randrange(40), i) for i in range(3 * SLICE + 11)]  # ties: stability shows
    expected = sorted(items, key=lambda t: t[0], reverse=reverse)
    assert sorted_in_slices(items, lambda t: t[0], reverse) == expected  # one thread: one call
    done = threading.Event()
    other = threading.Thread(target=done.wait)  # another thread alive: the sliced sort and merge
    other.start()
    try:
        assert threading.active_count() > 1
        assert sorted_in_slices(items, lambda t: t[0], reverse) == expected
    finally:
        done.set()
        other.join()
