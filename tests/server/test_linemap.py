"""`gmonlens_ide.linemap`: the build's lines through unsaved edits (issue 33, item 6)."""

from __future__ import annotations

from gmonlens_ide.linemap import EditLog, LineMap


def test_lines_inserted_above_move_what_follows() -> None:
    m = LineMap()
    m.apply(2, 0, 3)  # three lines inserted before line 2
    assert [m.current(i) for i in range(5)] == [0, 1, 5, 6, 7]
    assert m.base(3) is None and m.base(5) == 2
    assert m.unchanged(2, 4) and not m.unchanged(1, 2)  # lines were written between 1 and 2


def test_an_edited_body_is_changed_the_others_are_not() -> None:
    m = LineMap()
    m.apply(11, 1, 1)  # line 11 (inside a body 10..14) retyped
    assert m.unchanged(0, 9) and not m.unchanged(10, 14) and m.unchanged(15, 30)
    assert m.current(11) is None and m.near(11) == 11 and m.current(12) == 12
    m.apply(0, 2, 0)  # two lines deleted at the top
    assert m.current(12) == 10 and m.near(11) == 9 and m.current(1) is None


def test_the_build_is_mapped_from_the_save_before_it() -> None:
    log = EditLog(opened_ns=100)
    log.apply(0, 0, 1)  # edited, then saved at 200, then built at 250, then edited again
    log.saved(200)
    log.apply(5, 0, 2)
    built_then = log.since(250)
    assert built_then is not None and built_then.current(5) == 7 and built_then.current(4) == 4
    built_before = log.since(150)  # built from the text as opened
    assert built_before is not None and built_before.current(3) == 4 and built_before.current(4) == 7
    assert EditLog(opened_ns=100).since(300) is None  # nothing edited: nothing to map


def test_a_retyped_line_keeps_its_place() -> None:
    m = LineMap()
    m.apply(4, 1, 1)  # line 4 retyped
    assert m.current(4) is None and m.line(4) == 4 and not m.unchanged(4, 4)
    m.apply(8, 2, 3)  # lines 8-9 became three lines
    assert m.line(8) is None and m.line(9) is None and m.line(10) == 11
    m.apply(0, 1, 1)  # the first line retyped too
    assert m.line(0) == 0
