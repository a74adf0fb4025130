"""`gmonlens report`'s command line against gprof 2.40's: the same letters and long names, the
same argument kinds (none, optional attached, required), -v/-h acted on at once, and options for
output modes gmonlens lacks refused with "not supported yet" whatever their argument."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from gprof_harness import GMONLENS, NATIVE, gprof, run_tool

from gmonlens.commands.gprof_args import NONE, OPTIONAL, OPTIONS, REQUIRED

pytestmark = [
    pytest.mark.skipif(NATIVE.missing() is not None, reason=str(NATIVE.missing())),
    pytest.mark.unsampled,  # the command line only
]


def _report(args: list[str], cwd: Path) -> tuple[int, str, str]:
    r = run_tool([str(GMONLENS), "report", *args], cwd)
    return r.returncode, r.stdout.decode(), r.err


def _gprof_letter_kind(c: str, cwd: Path) -> str | None:
    """gprof's argument kind for -c, from its getopt messages (no files needed)."""
    alone = gprof(NATIVE, [f"-{c}"], cwd).err
    if "invalid option" in alone:
        return None
    if "requires an argument" in alone:
        return REQUIRED
    attached = gprof(NATIVE, [f"-{c}%"], cwd).err
    return NONE if "invalid option -- '%'" in attached else OPTIONAL


def test_letters_as_gprof(tmp_path: Path) -> None:
    ours = {o.letter: o.arg for o in OPTIONS if o.letter}
    for c in string.ascii_letters:
        if c in "hv":
            assert ours[c] == NONE
            continue
        assert ours.get(c) == _gprof_letter_kind(c, tmp_path), f"-{c}"


def test_long_names_as_gprof(tmp_path: Path) -> None:
    for o in OPTIONS:
        for name in o.longs:
            if name in ("json", "clones-apart", "hexdump", "help", "version"):  # gmonlens's own
                continue
            with_arg = gprof(NATIVE, [f"--{name}=%"], tmp_path).err
            bare = gprof(NATIVE, [f"--{name}"], tmp_path).err
            assert "unrecognized" not in with_arg, name
            if o.arg == NONE:
                assert "doesn't allow an argument" in with_arg, name
            else:
                assert "doesn't allow" not in with_arg, name
                assert ("requires an argument" in bare) == (o.arg == REQUIRED), name


def test_ambiguous_prefix_lists_gprofs_names(tmp_path: Path) -> None:
    theirs = gprof(NATIVE, ["--no"], tmp_path).err
    rc, _, ours = _report(["--no"], tmp_path)
    assert rc != 0
    want = set(re.findall(r"'--([a-z-]+)'", theirs.partition("possibilities:")[2]))
    assert set(re.findall(r"'--([a-z-]+)'", ours.partition("possibilities:")[2])) == want
    assert len(want) == 7


UNSUPPORTED = [o for o in OPTIONS if not o.supported]


@pytest.mark.parametrize("o", UNSUPPORTED, ids=lambda o: o.letter or o.longs[0])
def test_unsupported_modes_say_so_whatever_the_argument(o: object, tmp_path: Path) -> None:
    from gmonlens.commands.gprof_args import Option

    assert isinstance(o, Option)
    forms: list[list[str]] = []
    if o.letter:
        forms.append([f"-{o.letter}"] if o.arg != REQUIRED else [f"-{o.letter}", "x"])
        if o.arg != NONE:
            forms.append([f"-{o.letter}file.c"])
            forms.append([f"-{o.letter}main.c:12"])
        forms.append([f"-b{o.letter}"] if o.arg != REQUIRED else [f"-b{o.letter}", "9"])
    for name in o.longs:
        forms.append([f"--{name}"] if o.arg != REQUIRED else [f"--{name}", "y"])
        if o.arg != NONE:
            forms.append([f"--{name}=file.c"])
    for form in forms:
        rc, out, err = _report([*form, "prog", "gmon.out"], tmp_path)
        assert rc != 0 and out == "", form
        assert "not supported yet" in err and "Traceback" not in err, (form, err)


def test_version_shaped_as_gprofs(tmp_path: Path) -> None:
    theirs = gprof(NATIVE, ["-v"], tmp_path).stdout.decode().splitlines()
    assert re.fullmatch(r"GNU gprof \(.+\) \S+", theirs[0]), theirs
    for args in (
        ["report", "-v"],
        ["report", "--version"],
        ["--version"],
        ["report", "-v", "-%"],
        ["diff", "-v"],
    ):
        r = run_tool([str(GMONLENS), *args], tmp_path)
        lines = r.stdout.decode().splitlines()
        assert r.returncode == 0, args
        assert len(lines) == len(theirs), lines
        assert re.fullmatch(r"gmonlens report \(gmonlens\) \d+\.\d+\.\d+", lines[0]), lines
        assert lines[-1].endswith("This program has absolutely no warranty.")
    # as in gprof, an invalid option before -v is reported instead
    rc, _, err = _report(["-%", "-v"], tmp_path)
    assert rc != 0 and "invalid option -- '%'" in err


def test_help_describes_each_option_in_a_line(tmp_path: Path) -> None:
    rc, out, _ = _report(["--help"], tmp_path)
    assert rc == 0
    lines = out.splitlines()
    for o in OPTIONS:
        head = f"-{o.letter}" if o.letter else f"--{o.longs[0]}"
        hits = [line for line in lines if line.lstrip().startswith(head) and o.help in line]
        assert len(hits) == 1, head
        assert ("not supported yet" in hits[0]) == (not o.supported), hits[0]
    assert all(len(line) <= 100 for line in lines)
