"""mallocpolicy: glibc's mallopt is called with the documented values unless the environment's
own tunables are set; elsewhere nothing is done."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gmonlens.common import mallocpolicy

CHECK = """
import ctypes, sys
from gmonlens.common import mallocpolicy
calls = []
real = ctypes.CDLL
class Fake:
    def __init__(self, lib):
        self.gnu_get_libc_version = real(lib).gnu_get_libc_version
    def mallopt(self, param, value):
        calls.append((param, value))
        return 1
ctypes.CDLL = Fake
print(mallocpolicy.apply(), sorted(calls))
"""


def _run(env: dict[str, str]) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    out = subprocess.run([sys.executable, "-c", CHECK], env={**clean, **env}, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's tunables")
def test_both_set_unless_the_environment_says() -> None:
    want = sorted([(-8, mallocpolicy.ARENAS), (-3, mallocpolicy.MMAP_THRESHOLD)])
    assert _run({}) == f"True {want}"
    assert _run({"MALLOC_ARENA_MAX": "4"}) == f"True {[(-3, mallocpolicy.MMAP_THRESHOLD)]}"
    assert _run({"MALLOC_ARENA_MAX": "4", "MALLOC_MMAP_THRESHOLD_": "65536"}) == "True []"


def test_real_call_does_not_fail() -> None:
    assert mallocpolicy.apply() in (True, False)


def test_not_linux_is_a_no_op(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert mallocpolicy.apply() is False
