"""`info_reader`'s DWARF 5 line-program header tables hold what they claim before anything is made."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gmonlens.dwarf.info_reader import Unsupported, _v5_entries
from leb128 import uleb as _uleb


@pytest.mark.parametrize(
    ("formats", "count"),
    [
        (b"\x00", 5),  # no entry format: entries of no bytes
        (b"\x00", 2**62),  # the same, a count no loop should start
        (b"\x01\x01\x08", 1000),  # one string each: more entries than bytes left
    ],
)
def test_a_table_claiming_more_entries_than_bytes_is_unsupported(formats: bytes, count: int) -> None:
    data = formats + _uleb(count) + b"a\0"
    reader = SimpleNamespace(little=True, sections={})
    with pytest.raises(Unsupported):
        _v5_entries(reader, SimpleNamespace(osize=4), data, 0)  # type: ignore[arg-type]


def test_a_table_as_claimed_is_read() -> None:
    data = b"\x01\x01\x08" + _uleb(2) + b"a\0b\0"
    entries, end = _v5_entries(SimpleNamespace(little=True, sections={}), SimpleNamespace(osize=4), data, 0)  # type: ignore[arg-type]
    assert (entries, end) == ([{1: b"a"}, {1: b"b"}], len(data))
