"""Pure helpers of the exporters: integer apportioning, source-path remapping, the protobuf varint
and the colour ramp."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gmonlens.output.dot import ramp
from gmonlens.output.export_common import apportion, remap
from gmonlens.output.pprof import _varint


@given(st.integers(0, 10**12), st.lists(st.floats(0, 1e6), min_size=1, max_size=30))
def test_apportion_sums_exactly(total: int, weights: list[float]) -> None:
    parts = apportion(total, weights)
    assert sum(parts) == total and len(parts) == len(weights) and min(parts) >= 0
    s = sum(weights)
    if s > 0:
        for p, w in zip(parts, weights, strict=True):
            assert abs(p - total * w / s) < 1.0 + 1e-9 * total


def test_remap_whole_components_longest_first() -> None:
    m = {"/build": "/src", "/build/lib": "/libsrc"}
    assert remap("/build/a.c", m) == "/src/a.c"
    assert remap("/build/lib/x.c", m) == "/libsrc/x.c"
    assert remap("/buildx/a.c", m) == "/buildx/a.c"
    assert remap(None, m) is None
    assert remap("/build/a.c", None) == "/build/a.c"


def test_varint_encoding() -> None:
    assert _varint(0) == b"\x00"
    assert _varint(1) == b"\x01"
    assert _varint(300) == b"\xac\x02"
    assert _varint(-1) == b"\xff" * 9 + b"\x01"  # int64 -1: ten bytes, two's complement


def test_ramp_cold_to_hot() -> None:
    assert ramp(1.0) == "#ff0000"
    cold = ramp(0.0)
    assert int(cold[5:7], 16) > int(cold[1:3], 16)  # blue dominates
    assert ramp(-3) == cold and ramp(7) == ramp(1.0)
