"""Fuzzing the `profiles` globs over symlinked layouts (issue 22): random trees of folders, files
and links (to `.`, `..`, a sibling, outside the workspace, in cycles) under random patterns. The
expansion ends, takes each real file at most once, stays within its caps, and in an untrusted
workspace takes nothing whose links lead outside. No compiler needed."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gmonlens_ide.discovery import MAX_PROFILE_MATCHES, expand_profiles

NAMES = st.sampled_from(["a", "b", "build", "gmon.out", "gmon.out.1", "gmon.sum", ".hidden"])
TARGETS = st.sampled_from([".", "..", "a", "b", "build", "../outside", "/", "gmon.out", "missing"])
ENTRY = st.tuples(st.lists(NAMES, min_size=1, max_size=4), st.sampled_from(["dir", "file", "link"]), TARGETS)
PATTERN = st.lists(
    st.sampled_from(["*", "?", "a", "b", "build", "gmon.out*", "*/*", "[ab]", "..", "."]),
    min_size=1,
    max_size=12,
)


def _build(root: Path, entries: list[tuple[list[str], str, str]]) -> None:
    for parts, kind, target in entries:
        path = root.joinpath(*parts)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if kind == "dir":
                path.mkdir(exist_ok=True)
            elif kind == "file":
                path.write_bytes(b"")
            else:
                path.symlink_to(target)
        except OSError:  # a name taken by another kind, a parent that is a file or a link
            pass


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entries=st.lists(ENTRY, max_size=25),
    patterns=st.lists(PATTERN, min_size=1, max_size=3),
    trusted=st.booleans(),
)
def test_symlinked_layouts(
    entries: list[tuple[list[str], str, str]], patterns: list[list[str]], trusted: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "outside").mkdir()
        (base / "outside" / "gmon.out").write_bytes(b"secret")
        ws = base / "ws"
        ws.mkdir()
        _build(ws, entries)
        globs = ["/".join(p) for p in patterns]
        files, problems = expand_profiles(str(ws), globs, trusted=trusted)
        real = [os.path.realpath(f) for f in files]
        assert len(set(real)) == len(real)  # each real file once
        assert len(files) <= MAX_PROFILE_MATCHES
        assert all("\n" not in p and len(p) < 5000 for p in problems)
        if not trusted:
            root = os.path.realpath(ws)
            for f, r in zip(files, real, strict=True):
                inside_named = os.path.normpath(f).startswith(str(ws) + os.sep)
                if inside_named and os.path.exists(f):
                    assert r == root or r.startswith(root + os.sep), (f, r)  # `b -> .` named: the root


def test_a_planted_directory_link_in_the_fixed_part(tmp_path: Path) -> None:
    """`build -> ../outside` makes `build/gmon.out*` name files outside: left out, untrusted."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "gmon.out").write_bytes(b"secret")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "build").symlink_to("../outside")
    assert expand_profiles(str(ws), ["build/gmon.out*", "build/gmon.out"], trusted=False)[0] == []
    assert len(expand_profiles(str(ws), ["build/gmon.out*"], trusted=True)[0]) == 1
