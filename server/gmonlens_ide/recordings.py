"""Recordings in a workspace folder, as discovery finds them: the directories `gmonlens record`
left (its DIR: `gmonlens-record/` by default, the folder the editors' "Record a Profile" uses),
each read through its `record.json` (schema `gmonlens-record/1`, README "gmonlens record").

Contract of `find_recordings(folder, trusted, prefer)`:
- Where: `gmonlens-record/` in the folder and in each of discovery's build folders
  (`discovery.search_dirs`), and any of those folders that itself holds a `record.json` (a
  recording made with `--out build`, say). A DIR that is a symbolic link is not read (the engine
  refuses one as DIR too).
- `record.json` is the workspace's, so untrusted input: a regular file (a link is not followed
  out of an untrusted folder), at most `MAX_MANIFEST_BYTES`, JSON of schema `gmonlens-record/1`
  with the fields read here of the types it documents; anything else is no recording, with one
  note naming the file and the problem.
- Which profiles: those of one program of the recording (`binaries[]` with no `problem`): `prefer`
  (the `binary` setting) when the recording has it, else the command's own program, else the one
  with the most samples. Only files of that very directory named `gmon.out.<pid>`, regular files
  (not links), present now, are taken: a manifest cannot name a file elsewhere.
- `binary`: the recording's path of that program, a candidate for discovery's fit check (nothing
  is trusted without it); left out, with a note, when it leads outside an untrusted folder.
Never raises.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gmonlens.common.errors import GmonlensError
from gmonlens.runs.outdir import MANIFEST, MAX_MANIFEST_BYTES, PROFILE_NAME

from .settings import UNTRUSTED, outside
from .userfiles import read_regular

RECORD_DIR = "gmonlens-record"  # `gmonlens record`'s default DIR (gmonlens.runs.recording.DEFAULT_OUT)
SCHEMA = "gmonlens-record/1"


@dataclass(frozen=True)
class RecordingSet:
    """One recording's profiles of one program, ready for discovery."""

    directory: str  # the recording's DIR (absolute, as found under the folder)
    manifest: str  # its record.json
    profiles: tuple[str, ...]  # sorted, all in `directory`
    binary: str | None  # the recording's path of their program (a candidate), None when fenced
    program: str  # that program as the recording names it (for messages)
    others: tuple[str, ...] = ()  # the recording's other programs with profiles, not taken


def recording_dirs(folder: str, dirs: Sequence[str]) -> list[str]:
    """The directories that may hold a recording: each of `dirs` (discovery's search folders of
    `folder`) holding a record.json, and each one's RECORD_DIR; symbolic links left out."""
    out: list[str] = []
    for d in dirs:
        for cand in (os.path.join(d, RECORD_DIR), d):
            if cand in out or os.path.islink(cand) or not os.path.isdir(cand):
                continue
            if cand == d and not os.path.lexists(os.path.join(d, MANIFEST)):
                continue
            out.append(os.path.normpath(cand))
    return out


def manifests(dirs: Sequence[str]) -> list[str]:
    """The record.json files present for recordings in `dirs` (discovery's search folders), for a
    poller: a recording writes it last, so one appearing or rewritten is a finished recording (a
    folder or file that is not one changes nothing)."""
    paths = [os.path.join(base, MANIFEST) for d in dirs for base in (os.path.join(d, RECORD_DIR), d)]
    return [p for p in paths if os.path.lexists(p)]


def _document(folder: str, path: str, trusted: bool) -> tuple[dict[str, Any] | None, str | None]:
    """record.json as a JSON object of the schema, or (None, why not: one line naming the file);
    (None, None) when there is none."""
    if not os.path.lexists(path):
        return None, None
    if not trusted and outside(folder, path):
        return None, f"{path}: {UNTRUSTED}; recording ignored"
    try:
        data = read_regular(path, MAX_MANIFEST_BYTES, "recording")
    except GmonlensError as exc:
        return None, f"{exc}; recording ignored"
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, nested beyond reason
        return None, f"{path}: not a gmonlens record document ({type(exc).__name__}); recording ignored"
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        return None, f"{path}: not a {SCHEMA} document; recording ignored"
    return doc, None


def _programs(doc: dict[str, Any]) -> list[tuple[str, list[str], float]]:
    """(program, profile paths, samples) of each program with usable profiles, as the document
    says (entries of other types are skipped)."""
    out = []
    binaries = doc.get("binaries")
    for b in binaries if isinstance(binaries, list) else []:
        if not isinstance(b, dict) or b.get("problem") is not None:
            continue
        program, profiles, samples = b.get("binary"), b.get("profiles"), b.get("samples")
        if not isinstance(program, str) or not isinstance(profiles, list):
            continue
        paths = [p for p in profiles if isinstance(p, str)]
        count = float(samples) if isinstance(samples, (int, float)) and not isinstance(samples, bool) else 0.0
        out.append((program, paths, count))
    return out


def _choose(doc: dict[str, Any], programs: list[tuple[str, list[str], float]], prefer: str | None) -> int:
    """Index of the program to show (module docstring)."""
    command = doc.get("command")
    own = command.get("path") if isinstance(command, dict) else None
    for want in (prefer, own):
        if isinstance(want, str):
            hits = [
                i for i, (p, _, _) in enumerate(programs) if os.path.normpath(p) == os.path.normpath(want)
            ]
            if hits:
                return hits[0]
    return max(range(len(programs)), key=lambda i: programs[i][2])


def _own_files(directory: str, paths: list[str]) -> list[str]:
    """The paths that are regular files named gmon.out.<pid> in `directory` itself."""
    real = os.path.realpath(directory)
    out = []
    for p in paths:
        name = os.path.basename(p)
        if not PROFILE_NAME.fullmatch(name) or os.path.realpath(os.path.dirname(p)) != real:
            continue
        full = os.path.join(directory, name)
        try:
            if stat.S_ISREG(os.lstat(full).st_mode):
                out.append(full)
        except OSError:
            continue
    return sorted(set(out))


def read_recording(
    folder: str, directory: str, trusted: bool, prefer: str | None = None
) -> tuple[RecordingSet | None, str | None]:
    """The recording in `directory` (module docstring), or (None, a note saying why not; None
    when there is simply none)."""
    manifest = os.path.join(directory, MANIFEST)
    doc, why = _document(folder, manifest, trusted)
    if doc is None:
        return None, why
    programs = _programs(doc)
    if not programs:
        return None, f"{manifest}: the recording made no usable profile (its diagnosis says why)"
    chosen = _choose(doc, programs, prefer)
    program, paths, _ = programs[chosen]
    files = _own_files(directory, paths)
    if not files:
        return None, f"{manifest}: the profiles it lists are not in {directory} any more"
    binary: str | None = program if os.path.isabs(program) else None
    note = None
    if binary is not None and not trusted and outside(folder, binary):
        binary, note = None, f"{manifest}: its program {program} {UNTRUSTED}; not read"
    others = tuple(p for i, (p, _, _) in enumerate(programs) if i != chosen)
    return RecordingSet(directory, manifest, tuple(files), binary, program, others), note


def find_recordings(
    folder: str, dirs: Sequence[str], trusted: bool, prefer: str | None = None
) -> tuple[list[RecordingSet], list[str]]:
    """Every recording of `folder` (module docstring; `dirs`: discovery's search folders) and
    the notes on what was not taken."""
    found: list[RecordingSet] = []
    notes: list[str] = []
    for d in recording_dirs(folder, dirs):
        rec, note = read_recording(folder, d, trusted, prefer)
        if rec is not None:
            found.append(rec)
        if note:
            notes.append(note)
    return found, notes
