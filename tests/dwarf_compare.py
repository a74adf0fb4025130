"""The DWARF index read by the own reader (`gmonlens.dwarf.info_reader`) against pyelftools' reading
(`info_fallback`), for the tests that compare them on compiled programs."""

from __future__ import annotations

from typing import Any

from binaries import dwarf_index
from gmonlens.dwarf.declarations import DwarfIndex


def _everything(index: DwarfIndex) -> tuple[Any, ...]:
    units = index.units()
    decls = {u.offset: index.decls_of_unit(u.offset) for u in units}
    index.prepare_ranges()
    return units, decls, index.export()["unit_ranges"]


def assert_same_as_pyelftools(path: str) -> int:
    """Units, every unit's declarations and the address -> unit table of `path` are the same read
    either way, and the own reader read every unit itself (no unit left to pyelftools). Returns
    the number of declarations."""
    fast = dwarf_index(path)
    fallbacks: list[int] = []
    pyelftools_decls = fast._pyelftools_decls
    fast._pyelftools_decls = lambda offset: fallbacks.append(offset) or pyelftools_decls(offset)  # type: ignore[method-assign]
    got = _everything(fast)
    assert fast._reader is not None, "the own reader gave the file up"
    assert not fallbacks, f"units read by pyelftools: {fallbacks}"
    slow = dwarf_index(path)
    slow._reader_tried = True  # no own reader: pyelftools reads everything
    want = _everything(slow)
    assert got[0] == want[0], "units differ"
    for offset, decls in want[1].items():
        assert got[1][offset] == decls, f"declarations of the unit at {offset} differ"
    assert got[2] == want[2], "unit ranges differ"
    return sum(len(d) for d in got[1].values())
