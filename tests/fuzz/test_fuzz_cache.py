"""Mutated disk-cache entries (issue 9): on disk (bit flips, truncation, extension: the checksum
path) and as values stored again with a valid checksum (the shape path), for every kind the CLI
and the server keep. 0 crashes, 0 exceptions, 0 damaged entries accepted, and whatever the shape
check lets through is usable (no exception when used). Counts are printed (`pytest -s`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fuzz.test_fuzz_cli import built  # noqa: F401 (the module fixture)

pytestmark = pytest.mark.integration  # builds its inputs with gcc/g++ at test time

HERE = Path(__file__).resolve().parent


def test_fuzz_cache_entries(built: tuple[Path, Path], tmp_path: Path) -> None:  # noqa: F811
    binary, gmon = built
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg"), "GMONLENS_CACHE": "on"}
    r = subprocess.run(
        [sys.executable, str(HERE / "cache_fuzz.py"), str(binary), str(gmon), "40", "60", "9"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=tmp_path,
    )
    assert r.returncode == 0, f"cache fuzz died (exit {r.returncode}): {r.stderr[-800:]}"
    result = json.loads(r.stdout.strip().splitlines()[-1])
    print(f"\nfuzz cache: {result['counts']}, accepted-but-unusable: {result['n_lies']}")
    assert result["n_lies"] == 0, result["lies"]
