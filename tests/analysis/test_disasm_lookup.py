"""Which routines a `gmonlens disasm` SYMSPEC names (disasm/lookup.py): a FILE given as the
editor shows it (relative to the workspace) names the recorded file it ends in, whole path
components; a spec naming nothing says which spelling works."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gmonlens.common.model import Routine
from gmonlens.disasm.lookup import find_routines, no_match_message


def _routine(rid: int, name: str, file: str | None, line: int) -> Routine:
    return Routine(
        rid, name, name, 0x1000 + 0x10 * rid, 0x100F + 0x10 * rid, True, True, file, line,
        0.0, 0.0, 0.0, 0.0, 0, 0, 0, rid + 1, True, True, 1.0,
    )  # fmt: skip


PROFILE = SimpleNamespace(
    routines=(
        _routine(0, "match", "/home/u/pcre2/src/pcre2_match.c", 10),
        _routine(1, "match", "/home/u/pcre2/build/../src/pcre2_dfa_match.c", 20),
        _routine(2, "main", "/home/u/pcre2/src/main.c", 5),
        _routine(3, "helper", "/home/u/pcre2/lib/./util.c", 7),
        _routine(4, "crt", None, 0),
    )
)


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        ("src/pcre2_match.c:match", [0]),
        ("pcre2/src/pcre2_match.c:match", [0]),
        ("/home/u/pcre2/src/pcre2_match.c:match", [0]),
        ("./src/pcre2_match.c:match", [0]),
        ("pcre2_match.c:match", [0]),
        ("src/pcre2_dfa_match.c:match", [1]),  # the recorded path's `..` resolved
        ("lib/util.c:helper", [3]),  # and its `.`
        ("src/pcre2_match.c", [0]),
        ("src/pcre2_match.c:10", [0]),
        ("rc/pcre2_match.c:match", []),  # whole components only
        ("other/src/pcre2_match.c:match", []),
        ("match", [0, 1]),
    ],
)
def test_path_ending_in_the_recorded_file(spec: str, want: list[int]) -> None:
    assert find_routines(PROFILE, spec) == want  # type: ignore[arg-type]


def test_no_match_names_the_spellings_that_work() -> None:
    msg = no_match_message(PROFILE, "lib/src/pcre2_match.c:match")  # type: ignore[arg-type]
    assert "no routine matches 'lib/src/pcre2_match.c:match'" in msg
    assert "/home/u/pcre2/src/pcre2_match.c" in msg and "pcre2_dfa_match.c" in msg
    assert "\n" not in msg
    assert no_match_message(PROFILE, "nothing") == "no routine matches 'nothing'"  # type: ignore[arg-type]
