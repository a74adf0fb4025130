"""`c++filt` is never taken from the workspace: not from the current directory, not from an empty
or relative PATH entry; the real one (absolute PATH entries) still demangles."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PLANT = "#!/bin/sh\necho planted > {marker}\ncat\n"
PROBE = (
    "from gmonlens.common.demangle import demangle_all\n"
    "names, problem = demangle_all(['_Z3fooi', 'main'])\n"
    "print(names[0]); print(problem)\n"
)


@pytest.mark.parametrize("entry", ["", ".", "bin", "./bin", "CWD", "CWD/bin"])
def test_planted_cxxfilt_never_runs(tmp_path: Path, entry: str) -> None:
    if shutil.which("c++filt", path="/usr/bin:/bin") is None:
        pytest.skip("c++filt (binutils) not installed")
    marker = tmp_path / "marker"
    for d in (tmp_path, tmp_path / "bin"):
        d.mkdir(exist_ok=True)
        tool = d / "c++filt"
        tool.write_text(PLANT.format(marker=marker))
        tool.chmod(0o755)
    entry = entry.replace("CWD", str(tmp_path))
    env = {**os.environ, "PATH": os.pathsep.join([entry, "/usr/bin", "/bin"])}
    r = subprocess.run([sys.executable, "-c", PROBE], cwd=tmp_path, env=env, capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    assert not marker.exists(), "the workspace's c++filt ran"
    assert r.stdout.decode().splitlines() == ["foo(int)", "None"]
