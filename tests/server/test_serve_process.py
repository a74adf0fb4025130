"""`gmonlens serve` sets its process up before serving: GC thresholds, the GIL's switch interval
(requests beside a CPU-bound background step), the C allocator's policy."""

from __future__ import annotations

import gc
import sys
from typing import Any

import pytest

from gmonlens.common import mallocpolicy
from gmonlens_ide import isolation
from gmonlens_lsp import factory, serve


def test_serve_sets_up_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    served: list[bool] = []
    applied: list[bool] = []

    class Stub:
        def start_io(self) -> None:
            served.append(True)

    monkeypatch.setattr(factory, "create_server", lambda: Stub())
    monkeypatch.setattr(isolation, "neutral_process", lambda: None)

    def apply() -> bool:
        applied.append(True)
        return True

    monkeypatch.setattr(mallocpolicy, "apply", apply)
    before: tuple[Any, ...] = (sys.getswitchinterval(), gc.get_threshold())
    try:
        assert serve.main([]) == 0
        assert served == [True] and applied == [True]
        assert sys.getswitchinterval() == pytest.approx(serve.SWITCH_INTERVAL)
        assert serve.SWITCH_INTERVAL < 0.005  # under CPython's default (see serve.py)
        assert gc.get_threshold()[0] == 20_000
    finally:
        sys.setswitchinterval(before[0])
        gc.set_threshold(*before[1])
