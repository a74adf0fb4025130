"""`cycles.dfn_order`: a node without children is numbered at once, as its visit numbers it (the
same numbers, heads and chains as when it is walked: a self call makes the walk visit it and
changes nothing else), on random graphs with cycles and many leaves."""

from __future__ import annotations

import random

import pytest

from gmonlens.profile.cycles import dfn_order


def _graph(rng: random.Random) -> list[list[int]]:
    n = rng.randrange(1, 60)
    return [
        [rng.randrange(n) for _ in range(rng.choice((0, 0, 0, 1, 2, 4)))]  # most nodes are leaves
        for _ in range(n)
    ]


@pytest.mark.parametrize("seed", range(300))
def test_leaves_numbered_at_once_as_walked(seed: int) -> None:
    children = _graph(random.Random(seed))
    walked = [kids or [p] for p, kids in enumerate(children)]  # a leaf calls itself: visited
    assert dfn_order(children) == dfn_order(walked)
