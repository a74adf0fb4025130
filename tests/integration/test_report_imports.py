"""`gmonlens report`, run to the end on a real profile in its heaviest modes (-s writes gmon.sum
reading DWARF, --json, -A/-C/-i, -r), loads no pygls or lsprotocol, neither adapter and not the
editor-neutral layer (tests/test_architecture.py checks the usage and error paths)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from gprof_harness import Program, Workshop

ROOT = Path(__file__).resolve().parents[2]
CYCLES = Program("cycles", ("cycles.c",), args=("40000",))
PROBE = """
import sys
import gmonlens_cli.main as cli
status = cli.main(sys.argv[1:])
loaded = sorted(m for m in sys.modules
                if m.split(".")[0] in ("pygls", "lsprotocol", "gmonlens_lsp", "gmonlens_mcp", "gmonlens_ide"))
print(status, loaded, file=sys.stderr)
"""


@pytest.mark.parametrize("options", [["-s", "-p"], ["--json", "-r"], ["-A", "-C", "-i"], ["-b", "-l"]])
def test_report_loads_no_lsp_module(workshop: Workshop, tmp_path: Path, options: list[str]) -> None:
    built = workshop.get(CYCLES)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(ROOT / d) for d in ("analysis", "server")))
    argv = [sys.executable, "-c", PROBE, "report", *options, str(built.binary), str(built.gmon["out"])]
    out = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.stdout, out.stderr  # the report was printed
    assert out.stderr.splitlines()[-1] == "0 []", out.stderr


HEAVY = """
import sys
import gmonlens_cli.main as cli
status = cli.main(sys.argv[1:])
print(status, sorted({m.split(".")[0] for m in sys.modules if m.split(".")[0] in ("capstone", "elftools")}),
      file=sys.stderr)
"""


@pytest.mark.parametrize("options", [["-b", "-l"], ["-b"]])
def test_report_loads_no_disassembler_and_warm_no_dwarf_reader(
    workshop: Workshop, tmp_path: Path, options: list[str]
) -> None:
    """The fit rule reads the arcs against the code without capstone (issue 21 item 7: its import
    alone cost -l 15 MB and a tenth of gprof's time); with the line table and scopes in the disk
    cache, -l imports no pyelftools either."""
    built = workshop.get(CYCLES)
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(str(ROOT / d) for d in ("analysis", "server")),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
    )
    argv = [sys.executable, "-c", HEAVY, "report", *options, str(built.binary), str(built.gmon["out"])]
    runs = [
        subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300) for _ in "12"
    ]
    assert all(r.stdout for r in runs), runs[0].stderr
    assert runs[0].stderr.splitlines()[-1] in ("0 []", "0 ['elftools']"), runs[0].stderr  # cold: DWARF read
    assert runs[1].stderr.splitlines()[-1] == "0 []", runs[1].stderr
