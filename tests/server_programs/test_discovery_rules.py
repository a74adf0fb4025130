"""Discovery's candidates on the C fixture: stripped copies, shared objects, object files, another
program and another build are never chosen; several fitting copies are said; what cannot be found
names the setting that fixes it."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from gmonlens_ide.discovery import discover
from gmonlens_ide.session import load_folder
from gmonlens_ide.settings import Settings

pytestmark = pytest.mark.integration  # builds its inputs with gcc at test time


def _newer(path: Path, seconds: float = 30) -> None:
    t = time.time() + seconds
    os.utime(path, (t, t))


@pytest.fixture
def ws(c_ws: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "ws"
    shutil.copytree(c_ws, dest)
    return dest


def test_stripped_shared_object_and_objects_are_never_chosen(ws: Path, cpp_ws: Path) -> None:
    if shutil.which("strip") is None:
        pytest.skip("strip is not installed")
    build = ws / "build"
    subprocess.run(["strip", "-o", str(ws / "app-stripped"), str(build / "app")], check=True)
    subprocess.run(
        [
            "gcc",
            "-pg",
            "-g",
            "-fPIC",
            "-shared",
            "-I",
            str(ws / "include"),
            "-o",
            str(build / "libutil"),
            str(ws / "src" / "util.c"),
        ],
        check=True,
    )
    subprocess.run(
        ["gcc", "-pg", "-g", "-c", "-Iinclude", "-o", str(build / "main"), "src/main.c"], cwd=ws, check=True
    )
    shutil.copy(cpp_ws / "build" / "shapes", build / "shapes")
    for name in ("app-stripped", "build/libutil", "build/main", "build/shapes"):
        os.chmod(ws / name, 0o755)
        _newer(ws / name)
    found = discover(str(ws), Settings())
    assert found.problem is None and found.binary == str(build / "app")
    assert found.choice is None  # one fit: nothing to say
    # without the real program: one line, the stripped copy named, the setting to write
    (build / "app").unlink()
    problem = discover(str(ws), Settings()).problem or ""
    assert "no executable" in problem and "app-stripped has no symbol table" in problem
    assert "`binary` in gmonlens.yaml" in problem and "gmonlens.binary" in problem and "\n" not in problem


def test_several_fitting_copies_the_newest_is_taken_and_said(ws: Path) -> None:
    shutil.copy(ws / "build" / "app", ws / "app-copy")
    _newer(ws / "app-copy")
    found = discover(str(ws), Settings())
    assert found.binary == str(ws / "app-copy")
    assert found.choice and "newest of 2" in found.choice and "build/app" in found.choice


@pytest.mark.parametrize("loaded_before", [True, False])
def test_another_build_is_refused_and_named(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loaded_before: bool
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    if loaded_before:  # the profile was shown with build/app before the rebuild
        assert load_folder(str(ws), Settings(), 1).loaded is not None
    # the program rebuilt with more code since the run: its .text ends past the histogram
    (ws / "src" / "extra.c").write_text(
        "long extra_pad(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * i; return s; }\n"
    )
    subprocess.run(
        [
            "gcc",
            "-g",
            "-pg",
            "-O0",
            "-Iinclude",
            "-o",
            "build/app",
            "src/main.c",
            "src/util.c",
            "src/extra.c",
        ],
        cwd=ws,
        check=True,
    )
    _newer(ws / "build" / "app")
    problem = discover(str(ws), Settings()).problem or ""
    # each candidate tried is named with the evidence that refused it
    assert "build/app: its histogram ends at" in problem and "before the end of .text" in problem, problem
    # issue 33 (11): the fix is a new run, not setting `binary` (refused just the same)
    run_again = "run the program again (or pin the old binary: keep a copy of the build that ran and set `binary` to it)"
    if loaded_before:
        assert problem.endswith(
            f"; build/app was rebuilt after the run that wrote the profile: {run_again}"
        ), problem
        assert "gmonlens.binary client setting" not in problem
    else:  # nothing says it is this program: both fixes, the run first
        assert problem.endswith(
            f"; if build/app was rebuilt since the run, {run_again}; if the profile is another program's, "
            "set `binary` in gmonlens.yaml or the gmonlens.binary client setting"
        ), problem
    assert "\n" not in problem
    outcome = load_folder(str(ws), Settings(binary="build/app"), 2)  # set anyway: the same fix
    assert outcome.blocking and run_again in outcome.blocking, outcome.blocking
    assert ("was rebuilt after the run" in outcome.blocking) == loaded_before
    old = time.time() - 3600
    os.utime(ws / "build" / "app", (old, old))  # older than the profile: another program's, say
    problem = discover(str(ws), Settings()).problem or ""
    assert (
        problem.endswith("set `binary` in gmonlens.yaml or the gmonlens.binary client setting")
        and run_again not in problem
    )


def test_build_prefixed_folders_are_searched(ws: Path) -> None:
    """`build-release/` (or `build-O2/`, `cmake-build-debug/`) holding the program and its
    gmon.out is found with no configuration, as `build/` is."""
    (ws / "build").rename(ws / "build-release")
    found = discover(str(ws), Settings())
    assert found.problem is None, found.problem
    assert found.binary == str(ws / "build-release" / "app")
    assert found.profiles and all(p.startswith(str(ws / "build-release")) for p in found.profiles)
