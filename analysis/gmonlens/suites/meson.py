"""meson: the tests `meson test` would run, read from its introspection (`meson introspect
--tests BUILDDIR`, or `--benchmarks` with `--benchmark`), to be run by `gmonlens test` itself.

`gmonlens test -- meson test [-C BUILDDIR] [OPTIONS] [NAMES...]`, with meson test's selection:
NAMES (`name`, `project:name`, `project:`), `--suite S` and `--no-suite S` (S: `suite`,
`project:suite` or `project`, matched as meson matches them); `--num-processes N` (the jobs when
`gmonlens test -j` is not given; else MESON_TESTTHREADS, else the processors), `-t`/
`--timeout-multiplier F`, `--test-args ARGS`, `--wrapper CMD` applied as meson applies them;
`--no-rebuild` (else the build is brought up to date first, `meson compile -C BUILDDIR`, as
`meson test` does); `--setup`, `--gdb` and `--repeat` are refused (meson's introspection does
not give a setup's environment and wrappers).

Each test: its command, `env` (over gmonlens's environment), `workdir` (default BUILDDIR),
`timeout` (seconds; 0 or less: none), `is_parallel` (false: runs alone), `priority` (higher
first), `protocol` (`exitcode`: 0 passes, 77 is skipped, 99 is an error; `tap`: TAP's `not ok`
without `# TODO`, or `Bail out!`, fails; `gtest`, `rust`: the exit status), its suites as labels.
Meson's introspection does not say which tests are `should_fail`, nor whether an `env` entry
was set or prepended (it gives each value alone): such tests are judged by their own exit status
and run with the value as given; `gmonlens test` says so when a test fails.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gmonlens.common.errors import GmonlensError, UsageError
from gmonlens.suites.listing import capture
from gmonlens.suites.model import TestSpec, Verdict

MAX_TESTS = 100_000
SHOULD_FAIL = (
    "judged by its exit status: meson's introspection does not say whether a test is should_fail "
    "(`meson test` would then pass it)"
)
_REFUSED = ("--setup", "--gdb", "--gdb-path", "--repeat", "--list")
_VALUED = {"-C", "--suite", "--no-suite", "--num-processes", "-t", "--timeout-multiplier", "--test-args",
           "--wrapper", "--setup", "--maxfail", "--repeat", "--logbase", "--gdb-path"}  # fmt: skip


@dataclass(frozen=True)
class MesonArgs:
    """`meson test`'s arguments as gmonlens reads them."""

    builddir: str = "."
    names: tuple[str, ...] = ()
    suites: tuple[str, ...] = ()
    no_suites: tuple[str, ...] = ()
    jobs: int | None = None
    multiplier: float = 1.0
    test_args: tuple[str, ...] = ()
    wrapper: tuple[str, ...] = ()
    rebuild: bool = True
    benchmark: bool = False


def _pairs(args: Sequence[str]) -> list[tuple[str, str | None]]:
    """(option, value) pairs and (name, None) for positional words."""
    out: list[tuple[str, str | None]] = []
    i = 0
    while i < len(args):
        word = args[i]
        name, eq, value = word.partition("=")
        if name in _VALUED or (word.startswith("-C") and len(word) > 2):
            if word.startswith("-C") and len(word) > 2 and not eq:
                name, value = "-C", word[2:]
            elif not eq:
                if i + 1 >= len(args):
                    raise UsageError(None, f"meson test {name} needs a value")
                i, value = i + 1, args[i + 1]
            out.append((name, value))
        elif word.startswith("-"):
            out.append((word, ""))
        else:
            out.append((word, None))
        i += 1
    return out


def _number(option: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise UsageError(None, f"meson test {option} needs a number, not {value!r}") from None


def parse_args(args: Sequence[str], cwd: str) -> MesonArgs:
    """`meson test`'s ARGS (after `test`), as the module docstring says."""
    found: dict[str, Any] = {"names": [], "suites": [], "no_suites": []}
    for name, value in _pairs(args):
        if name in _REFUSED:
            raise UsageError(None, f"meson test {name} is not supported by gmonlens test")
        if value is None:
            found["names"].append(name)
        elif name == "-C":
            found["builddir"] = os.path.normpath(os.path.join(cwd, value))
        elif name in ("--suite", "--no-suite"):
            found["suites" if name == "--suite" else "no_suites"].append(value)
        elif name == "--num-processes":
            found["jobs"] = max(1, int(_number(name, value)))
        elif name in ("-t", "--timeout-multiplier"):
            found["multiplier"] = _number(name, value)
        elif name in ("--test-args", "--wrapper"):
            found["test_args" if name == "--test-args" else "wrapper"] = tuple(shlex.split(value))
        elif name == "--no-rebuild":
            found["rebuild"] = False
        elif name == "--benchmark":
            found["benchmark"] = True
    for key in ("names", "suites", "no_suites"):
        found[key] = tuple(found[key])
    found.setdefault("builddir", os.path.normpath(cwd))
    return MesonArgs(**found)


def _split_suite(text: str) -> tuple[str, str]:
    project, colon, suite = text.partition(":")
    return (project, suite) if colon else (text, "")


def in_suites(test_suites: Sequence[str], wanted: Sequence[str]) -> bool:
    """Whether a test of `test_suites` (`project:suite` or `project`) is in any of `wanted`
    (`suite`, `project:suite` or `project`), as `meson test --suite` matches."""
    for want in wanted:
        prj_want, st_want = _split_suite(want)
        for have in test_suites:
            prj, st = _split_suite(have)
            if not st_want and st == prj_want:
                return True
            if (prj_want and prj != prj_want) or (st_want and st != st_want):
                continue
            return True
    return False


def _named(name: str, suites: Sequence[str], wanted: Sequence[str]) -> bool:
    projects = {_split_suite(s)[0] for s in suites}
    for want in wanted:
        project, colon, test = want.rpartition(":")
        if (not colon and want == name) or (colon and project in projects and test in ("", name)):
            return True
    return False


def selected(entry: Mapping[str, Any], args: MesonArgs) -> bool:
    suites = [s for s in entry.get("suite") or () if isinstance(s, str)]
    if args.suites and not in_suites(suites, args.suites):
        return False
    if args.no_suites and in_suites(suites, args.no_suites):
        return False
    return not args.names or _named(str(entry.get("name")), suites, args.names)


def _verdict(protocol: str) -> Verdict:
    if protocol == "exitcode":
        return Verdict(skip_codes=(77,), error_codes=(99,), protocol=protocol)
    return Verdict(protocol=protocol)


def _timeout(value: Any, multiplier: float) -> float | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0 or multiplier <= 0:
        return None
    return float(value) * multiplier


def _spec(entry: Any, args: MesonArgs, base: Mapping[str, str]) -> TestSpec | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not selected(entry, args):
        return None
    cmd = entry.get("cmd")
    argv = tuple(cmd) if isinstance(cmd, list) and cmd and all(isinstance(c, str) for c in cmd) else ()
    env = dict(base)
    extra = entry.get("env")
    if isinstance(extra, dict):
        env.update({k: v for k, v in extra.items() if isinstance(k, str) and isinstance(v, str)})
    workdir = entry.get("workdir")
    protocol = entry.get("protocol") if isinstance(entry.get("protocol"), str) else "exitcode"
    suites = tuple(s for s in entry.get("suite") or () if isinstance(s, str))
    return TestSpec(
        name=entry["name"],
        argv=(*args.wrapper, *argv, *args.test_args) if argv else (),
        cwd=workdir if isinstance(workdir, str) and workdir else args.builddir,
        env=env,
        timeout=_timeout(entry.get("timeout"), args.multiplier),
        verdict=_verdict(str(protocol)),
        serial=entry.get("is_parallel") is False,
        labels=suites,
        problem=None if argv else "meson gives no command for it",
        caveat=SHOULD_FAIL,
    )


def parse_listing(data: bytes, args: MesonArgs, base: Mapping[str, str]) -> tuple[TestSpec, ...]:
    """`meson introspect --tests`'s document -> the selected tests, higher priority first."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        raise GmonlensError("meson", "its introspection (--tests) is not JSON") from None
    if not isinstance(doc, list) or len(doc) > MAX_TESTS:
        raise GmonlensError("meson", "its introspection (--tests) is not a list of tests")
    ranked = []
    for k, entry in enumerate(doc):
        spec = _spec(entry, args, base)
        if spec is not None:
            prio = entry.get("priority", 0)
            ranked.append((-(prio if isinstance(prio, int) else 0), k, spec))
    return tuple(spec for _, _, spec in sorted(ranked, key=lambda r: r[:2]))


def list_meson(
    argv: Sequence[str], cwd: str, env: Mapping[str, str], scratch: str
) -> tuple[tuple[TestSpec, ...], MesonArgs]:
    """The tests `argv` (`meson test ARGS...`) selects, and how it was asked."""
    args = parse_args(argv[2:], cwd)
    kind = "--benchmarks" if args.benchmark else "--tests"
    out = capture([argv[0], "introspect", kind, args.builddir], cwd, env, scratch)
    if out.status != 0:
        raise GmonlensError(args.builddir, f"meson introspect {kind} failed: {out.first_error_line()}")
    return parse_listing(out.stdout, args, env), args
