"""CTest: the tests `ctest` would run, read from `ctest --show-only=json-v1` (CTest 3.14+), to be
run by `gmonlens test` itself, one profile set each.

`gmonlens test -- ctest [ARGS...]`: ARGS go to the listing unchanged (`--test-dir`, `-C`, `-L`,
`-LE`, `-R`, `-E`, `-I`, `-U`, `--tests-from-file`...: CTest applies its own selection, and adds
the fixtures' setup and cleanup tests a selected test needs), but for what gmonlens does itself:
`-j N`/`--parallel N` (the jobs, when `gmonlens test -j` is not given; CTEST_PARALLEL_LEVEL
otherwise) and `--timeout S` (the time limit of tests without a TIMEOUT property).

Each test's properties, as CTest applies them: `WORKING_DIRECTORY` (CTest always states it),
`ENVIRONMENT` (`NAME=value` entries) then `ENVIRONMENT_MODIFICATION` (`NAME=op:value`: `reset`,
`set`, `unset`, `string_append`, `string_prepend`, `path_list_append`, `path_list_prepend`,
`cmake_list_append`, `cmake_list_prepend`), `TIMEOUT`, `WILL_FAIL`, `SKIP_RETURN_CODE`,
`PASS_REGULAR_EXPRESSION`, `FAIL_REGULAR_EXPRESSION`, `SKIP_REGULAR_EXPRESSION`, `DISABLED`,
`DEPENDS`, `FIXTURES_SETUP`/`FIXTURES_REQUIRED`/`FIXTURES_CLEANUP`, `RESOURCE_LOCK`,
`RUN_SERIAL`, `PROCESSORS`, `LABELS`; where the test was added (its backtrace's last node).
The listing is CTest's output, parsed as untrusted JSON: a test whose entry has the wrong shape
is listed with its problem, never run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gmonlens.common.errors import GmonlensError
from gmonlens.suites.listing import capture
from gmonlens.suites.model import TestSpec, Verdict

MAX_TESTS = 100_000


@dataclass(frozen=True)
class CtestArgs:
    """The user's ctest arguments: those for the listing, and those gmonlens takes."""

    listing: tuple[str, ...]
    jobs: int | None
    timeout: float | None


def _number(option: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise GmonlensError(None, f"ctest {option} needs a number, not {text!r}") from None
    if value < 0:
        raise GmonlensError(None, f"ctest {option} needs a number >= 0, not {text!r}")
    return value


def split_args(args: Sequence[str]) -> CtestArgs:
    """Take -j/--parallel and --timeout out of ctest's arguments (module docstring)."""
    keep: list[str] = []
    jobs: int | None = None
    timeout: float | None = None
    i = 0
    while i < len(args):
        word = args[i]
        name, eq, value = word.partition("=")
        if word in ("-j", "--parallel", "--timeout") or (name in ("--parallel", "--timeout") and eq):
            if not eq:
                if i + 1 >= len(args) or not args[i + 1][:1].isdigit():
                    if name == "--timeout":
                        raise GmonlensError(None, "ctest --timeout needs a number of seconds")
                    jobs, i = os.cpu_count() or 1, i + 1  # -j alone: CTest 3.29's "all processors"
                    continue
                i, value = i + 1, args[i + 1]
            if name == "--timeout":
                timeout = _number(name, value)
            else:
                jobs = max(1, int(_number(name, value)))
        elif word.startswith("-j") and word[2:].isdigit():
            jobs = max(1, int(word[2:]))
        else:
            keep.append(word)
        i += 1
    return CtestArgs(tuple(keep), jobs, timeout)


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, str))
    return ()


def _modify(env: dict[str, str], entry: str, unmodified: Mapping[str, str]) -> None:
    """One ENVIRONMENT_MODIFICATION entry (`NAME=op:value`), as CTest applies it (`reset`: back
    to `unmodified`, the environment with ENVIRONMENT's values)."""
    name, _, rest = entry.partition("=")
    op, _, value = rest.partition(":")
    old = env.get(name)
    if op == "reset":
        if name in unmodified:
            env[name] = unmodified[name]
        else:
            env.pop(name, None)
    elif op == "set":
        env[name] = value
    elif op == "unset":
        env.pop(name, None)
    elif op == "string_append":
        env[name] = (old or "") + value
    elif op == "string_prepend":
        env[name] = value + (old or "")
    elif op in ("path_list_append", "path_list_prepend", "cmake_list_append", "cmake_list_prepend"):
        sep = os.pathsep if op.startswith("path") else ";"
        parts = [value, old] if op.endswith("prepend") else [old, value]
        env[name] = sep.join(p for p in parts if p)


def environment(base: Mapping[str, str], props: Mapping[str, Any]) -> dict[str, str]:
    """The test's environment: `base`, then ENVIRONMENT, then ENVIRONMENT_MODIFICATION."""
    env = dict(base)
    for entry in _strings(props.get("ENVIRONMENT")):
        name, eq, value = entry.partition("=")
        if eq and name:
            env[name] = value
    unmodified = dict(env)
    for entry in _strings(props.get("ENVIRONMENT_MODIFICATION")):
        if "=" in entry:
            _modify(env, entry, unmodified)
    return env


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _float(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
    return float(value) if ok else None


def _where(doc: Mapping[str, Any], backtrace: Any) -> tuple[str | None, int]:
    """The file and line of `add_test` (the backtrace node's), when CTest gives them."""
    graph = doc.get("backtraceGraph")
    if not isinstance(graph, dict) or not isinstance(backtrace, int):
        return None, 0
    nodes, files = graph.get("nodes"), graph.get("files")
    if not isinstance(nodes, list) or not isinstance(files, list) or not 0 <= backtrace < len(nodes):
        return None, 0
    node = nodes[backtrace]
    at = node.get("file") if isinstance(node, dict) else None
    if not isinstance(at, int) or not 0 <= at < len(files) or not isinstance(files[at], str):
        return None, 0
    return files[at], _int(node.get("line"), 0)


def _verdict(props: Mapping[str, Any]) -> Verdict:
    skip = props.get("SKIP_RETURN_CODE")
    return Verdict(
        will_fail=props.get("WILL_FAIL") is True,
        skip_codes=(skip,) if isinstance(skip, int) and not isinstance(skip, bool) else (),
        pass_patterns=_strings(props.get("PASS_REGULAR_EXPRESSION")),
        fail_patterns=_strings(props.get("FAIL_REGULAR_EXPRESSION")),
        skip_patterns=_strings(props.get("SKIP_REGULAR_EXPRESSION")),
    )


def _properties(entry: Mapping[str, Any]) -> dict[str, Any]:
    props = entry.get("properties")
    out: dict[str, Any] = {}
    for p in props if isinstance(props, list) else ():
        if isinstance(p, dict) and isinstance(p.get("name"), str):
            out[p["name"]] = p.get("value")
    return out


def _spec(
    doc: Mapping[str, Any], entry: Any, base: Mapping[str, str], cwd: str, timeout: float | None
) -> TestSpec | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"]:
        return None
    props = _properties(entry)
    command = entry.get("command")
    argv = (
        tuple(command)
        if isinstance(command, list) and command and all(isinstance(c, str) for c in command)
        else ()
    )
    workdir = props.get("WORKING_DIRECTORY")
    file, line = _where(doc, entry.get("backtrace"))
    disabled = props.get("DISABLED") is True
    problem = (
        "disabled (DISABLED property)" if disabled else None if argv else "CTest gives no command for it"
    )
    return TestSpec(
        name=entry["name"],
        argv=argv,
        cwd=workdir if isinstance(workdir, str) and workdir else cwd,
        env=environment(base, props),
        timeout=_float(props.get("TIMEOUT")) or timeout,
        verdict=_verdict(props),
        depends=_strings(props.get("DEPENDS")),
        requires=_strings(props.get("FIXTURES_REQUIRED")),
        setups=_strings(props.get("FIXTURES_SETUP")),
        locks=_strings(props.get("RESOURCE_LOCK")),
        serial=props.get("RUN_SERIAL") is True,
        processors=max(1, _int(props.get("PROCESSORS"), 1)),
        labels=_strings(props.get("LABELS")),
        file=file,
        line=line,
        problem=problem,
        disabled=disabled,
    )  # fmt: skip


def _cleanups(specs: list[TestSpec], props: dict[str, tuple[str, ...]]) -> list[TestSpec]:
    """A FIXTURES_CLEANUP test waits for every test that requires its fixtures (as CTest runs it)."""
    out = []
    for s in specs:
        fixtures = set(props.get(s.name, ()))
        after = [t.name for t in specs if t.name != s.name and fixtures & set(t.requires)]
        out.append(s if not after else _with_depends(s, after))
    return out


def _with_depends(s: TestSpec, more: list[str]) -> TestSpec:
    from dataclasses import replace

    return replace(s, depends=tuple(dict.fromkeys((*s.depends, *more))))


def parse_listing(
    data: bytes, base: Mapping[str, str], cwd: str, timeout: float | None
) -> tuple[TestSpec, ...]:
    """CTest's `--show-only=json-v1` document -> the tests, in its order (module docstring);
    GmonlensError when it is not such a document."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        raise GmonlensError("ctest", "its --show-only=json-v1 output is not JSON") from None
    tests = doc.get("tests") if isinstance(doc, dict) else None
    if not isinstance(tests, list):
        raise GmonlensError("ctest", "its --show-only=json-v1 output has no list 'tests'")
    if len(tests) > MAX_TESTS:
        raise GmonlensError("ctest", f"more than {MAX_TESTS} tests")
    specs: list[TestSpec] = []
    cleanup: dict[str, tuple[str, ...]] = {}
    for entry in tests:
        spec = _spec(doc, entry, base, cwd, timeout)
        if spec is not None:
            specs.append(spec)
            cleanup[spec.name] = _strings(_properties(entry).get("FIXTURES_CLEANUP"))
    return tuple(_cleanups(specs, cleanup))


def list_ctest(
    argv: Sequence[str], cwd: str, env: Mapping[str, str], scratch: str
) -> tuple[tuple[TestSpec, ...], CtestArgs]:
    """The tests `argv` (`ctest ARGS...`) selects, and the arguments gmonlens took."""
    args = split_args(argv[1:])
    out = capture([argv[0], *args.listing, "--show-only=json-v1"], cwd, env, scratch)
    if out.status != 0:
        raise GmonlensError(argv[0], f"ctest --show-only=json-v1 failed: {out.first_error_line()}")
    return parse_listing(out.stdout, env, cwd, args.timeout), args
