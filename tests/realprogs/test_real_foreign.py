"""Another program's profile is refused (issue 21): every ordered pair of the tier's programs, by
`report`, with one line naming both files and the evidence (gmonlens.profile.fit); each program's own
profile is accepted (the other tests compare it with gprof)."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from . import programs
from .zerocheck import Oracle

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "integration"))
from gprof_harness import gmonlens

FIXTURES = ("sqlite_prog", "qjs_prog", "leveldb_prog", "libsass_prog", "jq_prog")


@pytest.mark.parametrize(("binary", "other"), list(itertools.permutations(FIXTURES, 2)))
def test_other_programs_profile_is_refused(binary: str, other: str, request: pytest.FixtureRequest,
                                           tmp_path: Path) -> None:  # fmt: skip
    b: tuple[programs.RealProgram, Oracle] = request.getfixturevalue(binary)
    o: tuple[programs.RealProgram, Oracle] = request.getfixturevalue(other)
    r = gmonlens([str(b[0].binary), str(o[0].gmon)], tmp_path)
    assert "Traceback" not in r.err, r.err
    assert r.returncode == 1, f"{b[0].name} accepted {o[0].name}'s profile: {r.err}"
    lines = r.err.splitlines()
    assert len(lines) == 1 and str(b[0].binary) in lines[0] and str(o[0].gmon) in lines[0], r.err
    assert "does not fit" in lines[0], lines[0]
