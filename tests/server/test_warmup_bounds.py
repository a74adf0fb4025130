"""Issue 22: cache warm-up processes are bounded in number (60 folders started 60 at once) and in
memory (RLIMIT_AS on the child: past it, one line saying so, never a traceback)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from gmonlens_ide import warmup
from gmonlens_lsp import reload
from gmonlens_lsp.factory import create_server


def test_warmups_wait_for_a_slot(monkeypatch: pytest.MonkeyPatch) -> None:
    running = peak = 0

    async def fake(ls: object, args: list[str]) -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.01)
        running -= 1

    monkeypatch.setattr(reload, "_warm_now", fake)

    async def many() -> None:
        ls = create_server()
        await asyncio.gather(*(reload._warm(ls, [f"/w{i}/app"]) for i in range(60)))

    asyncio.run(many())
    assert peak == warmup.MAX_CONCURRENT


def test_memory_limit_grows_with_the_binary(tmp_path: Path) -> None:
    small, big = tmp_path / "small", tmp_path / "big"
    small.write_bytes(b"x" * 1000)
    big.write_bytes(b"x" * (4 << 20))
    assert warmup.memory_limit(str(small)) < warmup.memory_limit(str(big))
    assert warmup.memory_limit(str(tmp_path / "missing")) >= 1 << 30


def test_out_of_memory_is_one_line(tmp_path: Path) -> None:
    """The limit is set by the child itself; work that outgrows it ends with one line (the
    message is prepared before the work: formatting one after MemoryError failed)."""
    app = tmp_path / "app"
    app.write_bytes(b"")
    code = (
        "import sys; from gmonlens_ide import warmup; "
        "warmup.warm = lambda *a: [bytearray(1 << 20) for _ in range(4096)]; "
        f"sys.exit(warmup.main(['--max-memory=300000000', {str(app)!r}, 'gmon.out']))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [f"gmonlens warm-up: {app}: out of memory (address-space limit)"], (
        proc.stderr
    )
