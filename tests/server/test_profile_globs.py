"""Issue 22: a `profiles` glob of gmonlens.yaml cannot explode. A link to `.` twice and `*/`
repeated 18 times used to match one 2.5 KB profile 262,144 times (summed: 31,457 s of samples);
20,000 matches were stat-ed four times a second and logged as one 700 KB line."""

from __future__ import annotations

import os
from pathlib import Path

from gmonlens_ide import discovery
from gmonlens_ide.discovery import MAX_GLOB_DEPTH, MAX_PROFILE_MATCHES, brief, expand_profiles
from gmonlens_ide.session import MAX_POLLED_FILES, FolderState, watched_stamp
from gmonlens_ide.settings import Settings


def _links_to_dot(ws: Path) -> None:
    (ws / "gmon.out").write_bytes(b"x")
    (ws / "a").symlink_to(".")
    (ws / "b").symlink_to(".")


def test_links_to_the_folder_do_not_multiply_matches(tmp_path: Path) -> None:
    _links_to_dot(tmp_path)
    files, _ = expand_profiles(str(tmp_path), ["*/" * 6 + "gmon.out*"])
    assert len(files) <= 1, len(files)
    assert not files or os.path.realpath(files[0]) == str((tmp_path / "gmon.out").resolve())


def test_one_file_by_two_routes_is_taken_once(tmp_path: Path) -> None:
    _links_to_dot(tmp_path)
    files, _ = expand_profiles(str(tmp_path), ["gmon.out", "a/gmon.out", "b/gmon.ou?", "./gmon.*"])
    assert files == [str(tmp_path / "gmon.out")]


def test_depth_is_capped_with_a_message(tmp_path: Path) -> None:
    _links_to_dot(tmp_path)
    files, problems = expand_profiles(str(tmp_path), ["*/" * 18 + "gmon.out*"])
    assert files == []
    (problem,) = problems
    assert str(MAX_GLOB_DEPTH) in problem and "levels" in problem


def test_matches_are_capped_with_a_message(tmp_path: Path) -> None:
    for i in range(MAX_PROFILE_MATCHES + 50):
        (tmp_path / f"gmon.out.{i}").write_bytes(b"")
    files, problems = expand_profiles(str(tmp_path), ["gmon.out.*"])
    assert len(files) == MAX_PROFILE_MATCHES
    (problem,) = problems
    assert f"more than {MAX_PROFILE_MATCHES} files" in problem and len(problem) < 300


def test_polling_does_not_grow_with_the_matches(tmp_path: Path) -> None:
    """Past MAX_POLLED_FILES profiles the poller lists the profile names in their folders instead of
    stat'ing each file (issue 27: not the folders' mtimes, which any file created there changes)."""
    profiles = []
    for sub in ("r1", "r2"):
        (tmp_path / sub).mkdir()
        for i in range(300):
            p = tmp_path / sub / f"gmon.out.{i}"
            p.write_bytes(b"")
            profiles.append(str(p))
    state = FolderState(
        uri=tmp_path.as_uri(), path=str(tmp_path), settings=Settings(profiles=("*/gmon.out.*",))
    )
    state.inputs = (str(tmp_path / "gmonlens.yaml"), *profiles, str(tmp_path / "app"))
    paths = state.watch_paths()
    assert len(paths) <= MAX_POLLED_FILES + 4, len(paths)
    dirs = state.watch_dirs()
    assert {str(tmp_path / "r1"), str(tmp_path / "r2")} <= set(dirs) and "gmon.out.*" in dirs[
        str(tmp_path / "r1")
    ]
    before = watched_stamp(state)
    (tmp_path / "r1" / ".gmon.out.7.swp").write_bytes(b"")  # an editor's file: not a profile
    assert watched_stamp(state) == before
    (tmp_path / "r1" / "gmon.out.300").write_bytes(b"")  # a new run
    assert watched_stamp(state) != before


def test_log_lines_name_a_few_files() -> None:
    text = brief(f"/w/build/gmon.out.{i}" for i in range(20_000))
    assert text.endswith("and 19997 more") and len(text) < 200
    assert discovery.brief(["a", "b"]) == "a, b"
