"""A libtool build tree (fixture libtoolproject: wrapper script build/app, the ELF in build/.libs/,
the code in build/.libs/libwork.so.0): discovery finds the program in .libs/, says its code is in a
shared library gprof cannot profile and how to fix it; when nothing fits, the problem names every
candidate tried and why it was refused."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gmonlens_ide.discovery import discover, libtool_wrapper
from gmonlens_ide.settings import Settings

from .conftest import built

pytestmark = pytest.mark.integration  # builds its inputs with gcc at test time


@pytest.fixture
def lt(tmp_path: Path) -> Path:
    return built("libtoolproject", tmp_path)


def test_program_in_libs_is_found_and_the_shared_library_said(lt: Path) -> None:
    found = discover(str(lt), Settings())
    assert found.problem is None, found.problem
    assert found.binary == str(lt / "build" / ".libs" / "app")
    said = found.choice or ""
    assert "libwork.so.0" in said and "--disable-shared" in said and "-static" in said, said
    assert libtool_wrapper(str(lt / "build" / "app")) == str(lt / "build" / ".libs" / "app")
    assert libtool_wrapper(str(lt / "build.sh")) is None  # names another script in its text


def test_nothing_fits_names_each_candidate_and_why(lt: Path, c_ws: Path) -> None:
    (lt / "build" / ".libs" / "app").unlink()
    shutil.copy(c_ws / "build" / "app", lt / "build" / "other")  # another program's executable
    problem = discover(str(lt), Settings()).problem or ""
    assert "build/app is a libtool wrapper script and build/.libs/app is not an executable" in problem, (
        problem
    )
    assert "build/other: its histogram" in problem or "build/other: none of its" in problem, problem
    assert "gmonlens.binary" in problem and "\n" not in problem


def test_binary_setting_naming_another_program_is_refused(
    c_ws: Path, clones_ws: Path, tmp_path: Path
) -> None:
    """With `binary:` set to another program, the load is refused in one line naming both files and
    the evidence (it was loaded with a log line only)."""
    from gmonlens_ide.session import load_folder

    other = c_ws / "build" / "app"  # its .text ends past the clones program's histogram
    out = load_folder(str(clones_ws), Settings(binary=str(other)), 1)
    assert out.blocking is not None and "\n" not in out.blocking, out
    assert str(other) in out.blocking and str(clones_ws / "build" / "gmon.out") in out.blocking, out.blocking
    assert "does not fit" in out.blocking and "before the end of .text" in out.blocking, out.blocking
