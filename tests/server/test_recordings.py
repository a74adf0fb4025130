"""Discovery finds what `gmonlens record` left (`gmonlens_ide.recordings`): one program's profiles
as the recording's record.json names them, its program tried first, the newest set winning; and
record.json is the workspace's, so untrusted: it cannot name a file elsewhere, a link, or (in an
untrusted folder) a program outside the folder. No compiler: the program is the protocol
examples' (made in Python)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gmonlens.runs.recording import DEFAULT_OUT
from gmonlens_ide.discovery import discover
from gmonlens_ide.recordings import RECORD_DIR, find_recordings, manifests
from gmonlens_ide.session import FolderState, watched_stamp
from gmonlens_ide.settings import UNTRUSTED, Settings
from protocol.example_program import assemble, elf, gmon

T0 = 1_700_000_000


def _program(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(elf(assemble()))
    os.chmod(path, 0o755)
    os.utime(path, (T0, T0))


def _recording(
    directory: Path, programs: dict[str, list[int]], command: str, *, t: int = T0 + 100, **extra: Any
) -> dict[str, Any]:
    """A recording in `directory`: gmon.out.<pid> files (the example's profile), record.json
    naming them per program."""
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    binaries = []
    for program, pids in programs.items():
        paths = []
        for pid in pids:
            f = directory / f"gmon.out.{pid}"
            f.write_bytes(gmon(assemble(), baseline=False))
            os.utime(f, (t, t))
            paths.append(str(f))
        binaries.append({"binary": program, "profiles": paths, "samples": 100.0 * len(pids), "problem": None})
    doc = {"schema": "gmonlens-record/1", "command": {"path": command}, "binaries": binaries, **extra}
    (directory / "record.json").write_text(json.dumps(doc))
    return doc


def test_the_default_dir_is_the_engines() -> None:
    assert RECORD_DIR == DEFAULT_OUT


def test_a_recording_is_found_with_its_program_outside_the_build_folders(tmp_path: Path) -> None:
    prog = tmp_path / "tools" / "bin" / "prog"  # in no folder discovery searches
    _program(prog)
    _recording(tmp_path / RECORD_DIR, {str(prog): [101, 102]}, str(prog))
    found = discover(str(tmp_path), Settings())
    assert found.problem is None, found.problem
    assert found.binary == str(prog)
    assert found.profiles == tuple(str(tmp_path / RECORD_DIR / f"gmon.out.{p}") for p in (101, 102))
    assert found.choice is None


def test_one_programs_profiles_and_the_choice_said(tmp_path: Path) -> None:
    prog, other = tmp_path / "prog", tmp_path / "sh"
    _program(prog)
    _recording(tmp_path / RECORD_DIR, {str(other): [7], str(prog): [8]}, str(prog))
    found = discover(str(tmp_path), Settings())
    assert found.binary == str(prog) and found.profiles == (str(tmp_path / RECORD_DIR / "gmon.out.8"),)
    assert found.choice and "also of sh" in found.choice and "`binary`" in found.choice
    # the binary setting picks the other program's profiles
    chosen = discover(str(tmp_path), Settings(binary="sh"))
    assert chosen.profiles == (str(tmp_path / RECORD_DIR / "gmon.out.7"),)


def test_the_newest_set_wins(tmp_path: Path) -> None:
    prog = tmp_path / "prog"
    _program(prog)
    _recording(tmp_path / RECORD_DIR, {str(prog): [5]}, str(prog), t=T0 + 100)
    plain = tmp_path / "build" / "gmon.out"
    plain.parent.mkdir()
    plain.write_bytes(gmon(assemble(), baseline=True))
    os.utime(plain, (T0 + 200, T0 + 200))
    assert discover(str(tmp_path), Settings()).profiles == (str(plain),)
    os.utime(plain, (T0 + 50, T0 + 50))
    assert discover(str(tmp_path), Settings()).profiles == (str(tmp_path / RECORD_DIR / "gmon.out.5"),)


def test_recorded_with_out_build(tmp_path: Path) -> None:
    """`gmonlens record --out build`: build/ is a recording; only its record.json's profiles of
    the program are taken, not every gmon.out.* there."""
    prog = tmp_path / "build" / "prog"
    _program(prog)
    _recording(tmp_path / "build", {str(prog): [3], "/bin/sh": [4]}, str(prog))
    found = discover(str(tmp_path), Settings(trusted=True))
    assert found.binary == str(prog) and found.profiles == (str(tmp_path / "build" / "gmon.out.3"),)


def test_a_manifest_cannot_name_files_elsewhere_or_links(tmp_path: Path) -> None:
    prog = tmp_path / "prog"
    _program(prog)
    rec = tmp_path / RECORD_DIR
    doc = _recording(rec, {str(prog): [1, 2]}, str(prog))
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    (elsewhere / "gmon.out.9").write_bytes(gmon(assemble(), baseline=False))
    os.remove(rec / "gmon.out.2")
    os.symlink(elsewhere / "gmon.out.9", rec / "gmon.out.2")  # a link planted among the profiles
    doc["binaries"][0]["profiles"] += [str(elsewhere / "gmon.out.9"), "/etc/passwd", str(rec / "record.json")]
    (rec / "record.json").write_text(json.dumps(doc))
    sets, _ = find_recordings(str(tmp_path), [str(tmp_path)], trusted=True)
    assert [s.profiles for s in sets] == [(str(rec / "gmon.out.1"),)]


def test_the_program_outside_an_untrusted_folder_is_not_read(tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside" / "prog"
    ws.mkdir()
    _program(outside)
    _recording(ws / RECORD_DIR, {str(outside): [1]}, str(outside))
    sets, notes = find_recordings(str(ws), [str(ws)], trusted=False)
    assert sets[0].binary is None and any(UNTRUSTED in n and str(outside) in n for n in notes)
    found = discover(str(ws), Settings())
    assert found.binary is None and "no executable" in (found.problem or "")
    trusted = discover(str(ws), Settings(trusted=True))
    assert trusted.binary == str(outside)


@pytest.mark.parametrize(
    "content",
    [
        b"not json",
        b"\xff\xfe",
        b"[" * 100_000,
        b'{"schema": "other/1"}',
        b'{"schema": "gmonlens-record/1", "binaries": 5}',
    ],
)
def test_a_bad_manifest_is_one_note(tmp_path: Path, content: bytes) -> None:
    rec = tmp_path / RECORD_DIR
    rec.mkdir()
    (rec / "record.json").write_bytes(content)
    found = discover(str(tmp_path), Settings())
    assert found.profiles == () and found.problem and str(rec / "record.json") in found.problem
    assert "\n" not in found.problem


def test_a_fifo_a_link_and_a_linked_dir_are_not_read(tmp_path: Path) -> None:
    rec = tmp_path / RECORD_DIR
    rec.mkdir()
    os.mkfifo(rec / "record.json")  # never a wait
    sets, notes = find_recordings(str(tmp_path), [str(tmp_path)], trusted=False)
    assert sets == [] and "not a regular file" in notes[0]
    os.remove(rec / "record.json")
    secret = tmp_path.parent / f"{tmp_path.name}-secret.json"
    secret.write_text('{"schema": "gmonlens-record/1", "binaries": []}')
    os.symlink(secret, rec / "record.json")
    sets, notes = find_recordings(str(tmp_path), [str(tmp_path)], trusted=False)
    assert sets == [] and UNTRUSTED in notes[0]
    os.remove(rec / "record.json")
    os.rmdir(rec)
    real = tmp_path.parent / f"{tmp_path.name}-rec"
    _recording(real, {"/x/prog": [1]}, "/x/prog")
    os.symlink(real, rec)  # DIR itself a link: not read, as the engine refuses it
    assert find_recordings(str(tmp_path), [str(tmp_path)], trusted=True) == ([], [])


def test_a_recording_without_a_usable_profile_is_the_problem(tmp_path: Path) -> None:
    rec = tmp_path / RECORD_DIR
    rec.mkdir()
    (rec / "record.json").write_text(json.dumps({"schema": "gmonlens-record/1", "binaries": []}))
    problem = discover(str(tmp_path), Settings()).problem or ""
    assert problem.startswith(str(rec / "record.json")) and "no usable profile" in problem


def test_a_recording_ending_changes_the_watched_stamp(tmp_path: Path) -> None:
    """record.json is written last: its appearing (a first recording) or its rewriting (another)
    changes what the poller sees; the recording's folder appearing alone does not."""
    state = FolderState(uri=tmp_path.as_uri(), path=str(tmp_path))
    before = watched_stamp(state)
    (tmp_path / RECORD_DIR).mkdir()
    (tmp_path / RECORD_DIR / "gmon.out.5").write_bytes(b"a profile being written")
    assert watched_stamp(state) == before and manifests([str(tmp_path)]) == []
    (tmp_path / RECORD_DIR / "record.json").write_text("{}")
    assert str(tmp_path / RECORD_DIR / "record.json") in state.watch_paths()
    first = watched_stamp(state)
    assert first != before
    (tmp_path / RECORD_DIR / "record.json").write_text('{"schema": "gmonlens-record/1"}')
    assert watched_stamp(state) != first
