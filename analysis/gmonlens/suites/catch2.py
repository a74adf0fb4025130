"""Catch2 binaries: their test cases listed, each run in a process of its own (the test's name as
Catch2's test spec, escaped), or each source file's test cases together (`--per suite`: Catch2
has no suites; its file is the nearest thing, as `-#`/`--filenames-as-tags` makes it).

Listing: `--list-test-names-only` (Catch2 v2; one name a line), or, where Catch2 v3 refuses it,
`--list-tests --verbosity quiet`; for `--per suite`, the verbose listing (`--list-tests
--verbosity high`) gives each test's `file:line`, in the same order. The user's arguments go to
the listing (test specs such as `[fast]` select the tests); the runs keep the user's options but
not their test specs and `-f`/`--input-file` (replaced by the test's own spec). Hidden tests
(`[.]`) are not listed, so not run, as Catch2 does. Verdict: the exit status (Catch2 exits with
the number of failed assertions).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from gmonlens.common.errors import GmonlensError
from gmonlens.suites.listing import Captured, capture
from gmonlens.suites.model import TestSpec

# Catch2's options that take a value (v2 and v3): the word after them is no test spec
_VALUED = {"-o", "--out", "-r", "--reporter", "-n", "--name", "-d", "--durations", "-D", "--min-duration",
           "-f", "--input-file", "-c", "--section", "-w", "--warn", "-x", "--abortx", "--order",
           "--rng-seed", "--use-colour", "--colour-mode", "--wait-for-keypress", "-v", "--verbosity",
           "--benchmark-samples", "--benchmark-resamples", "--benchmark-confidence-interval",
           "--benchmark-warmup-time", "--shard-count", "--shard-index", "--libidentify"}  # fmt: skip
_DROPPED = {"-f", "--input-file"}
_SPECIAL = set('\\,[]*"')
_FILE_LINE = re.compile(r"^    (\S.*):(\d+)$")


def escape_spec(name: str) -> str:
    """A test name as a Catch2 test spec that matches only it (`\\` before `\\ , [ ] * "`, and
    before a leading `~`, which would negate it)."""
    out = "".join("\\" + ch if ch in _SPECIAL else ch for ch in name)
    return "\\" + out if out.startswith("~") else out


def split_args(args: Sequence[str]) -> tuple[list[str], list[str]]:
    """(the options the runs keep, the test specs) of the user's arguments."""
    options: list[str] = []
    specs: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        name = word.partition("=")[0]
        if word.startswith("-") and name in _VALUED and "=" not in word and i + 1 < len(args):
            if name not in _DROPPED:
                options += [word, args[i + 1]]
            i += 2
            continue
        if word.startswith("-"):
            if name not in _DROPPED:
                options.append(word)
        else:
            specs.append(word)
        i += 1
    return options, specs


def _names(out: Captured) -> list[str]:
    return [line.strip() for line in out.stdout.decode("utf-8", "replace").splitlines() if line.strip()]


def _list(argv: Sequence[str], cwd: str, env: Mapping[str, str], scratch: str) -> list[str]:
    out = capture([*argv, "--list-test-names-only"], cwd, env, scratch)
    refused = b"nrecognised" in out.stderr + out.stdout or b"nrecognized" in out.stderr + out.stdout
    if refused:  # Catch2 v3
        out = capture([*argv, "--list-tests", "--verbosity", "quiet"], cwd, env, scratch)
        if out.status >= 128 or b"nrecognised" in out.stderr:
            raise GmonlensError(argv[0], f"cannot list its Catch2 tests: {out.first_error_line()}")
    elif out.status >= 128:
        raise GmonlensError(argv[0], f"cannot list its Catch2 tests: {out.first_error_line()}")
    return _names(out)


def _files(
    argv: Sequence[str], cwd: str, env: Mapping[str, str], scratch: str, count: int
) -> list[tuple[str, int]]:
    out = capture([*argv, "--list-tests", "--verbosity", "high"], cwd, env, scratch)
    found = []
    for line in out.stdout.decode("utf-8", "replace").splitlines():
        m = _FILE_LINE.match(line)
        if m:
            found.append((m.group(1), int(m.group(2))))
    if len(found) != count:
        raise GmonlensError(
            argv[0], "cannot tell each Catch2 test's source file (its verbose list differs): use --per test"
        )
    return found


def list_catch2(
    argv: Sequence[str], cwd: str, env: Mapping[str, str], scratch: str, per: str
) -> tuple[TestSpec, ...]:
    """The test cases of Catch2 binary `argv[0]` (module docstring)."""
    options, _specs = split_args(argv[1:])
    names = list(dict.fromkeys(_list(argv, cwd, env, scratch)))
    run = (argv[0], *options)
    if per != "suite":
        return tuple(TestSpec(n, (*run, escape_spec(n)), cwd, dict(env)) for n in names)
    files = _files(argv, cwd, env, scratch, len(names))
    groups: dict[str, list[str]] = {}
    first: dict[str, int] = {}
    for n, (file, line) in zip(names, files, strict=True):
        groups.setdefault(file, []).append(n)
        first.setdefault(file, line)
    return tuple(
        TestSpec(
            file,
            (*run, ",".join(escape_spec(n) for n in members)),
            cwd,
            dict(env),
            file=file,
            line=first[file],
        )
        for file, members in groups.items()
    )
