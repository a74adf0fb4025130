"""`gmonlens test`'s index, DIR/index.json, also its `--json` document (schema `gmonlens-test/1`;
pure). Times in seconds, paths relative to DIR (the folder can be moved with the tree it sits
in, or kept as a CI artifact beside the build):

- `schema`, `runner` (ctest, gtest, catch2, meson, commands), `argv`, `cwd` (absolute), `jobs`,
  `per` (`test` or `suite`), `interrupted`, `helper` (null, or why gmonlens's helper library was
  not used: then a test's child programs are named only from the suite's executables);
- `summary`: `tests`, a count per status (`passed`, `failed`, `skipped`, `timeout`, `not run`,
  `interrupted`), `duration` (the tests' wall seconds summed), `binaries[]` (each program with
  profiles: `binary`, `tests` (how many have its profiles), `profiles` (how many files),
  `samples`, `seconds`, `calls`: the whole suite's sum, what `gprof -s` gives over all its files);
- `tests[]`, in the runner's order: `name`, `status`, `exit_status` (as a shell reports it; null
  when not run), `duration` (wall), `cpu_seconds`, `directory` (its folder), `output` (its
  output file, or null), `command`, `cwd`, `labels`, `file`/`line` (where the runner says it is
  defined, or null/0), `notes` (why it has no profile, why it did not run, glibc's messages),
  `unknown_profiles` (files no program of the suite fits); then its main binary's profile (the
  test's own executable, else the binary with most samples): `binary` (null when none),
  `profiles` (the files), `pids`, `samples`, `hz`, `seconds` and `seconds_error` (one standard
  error, sqrt(samples)/hz; null without a rate), `calls` (routine -> calls, every routine the
  test called: gprof's `calls+self`, names as gprof's index prints them), `hottest` (up to
  HOTTEST routines by self time: `name`, `self_seconds`, `total_seconds`, `calls`), `problem`;
  and `other_binaries[]`: the same fields for each further program the test ran.
`gmonlens check` reads this file (`check/test_runs.py`: one profile set per test and binary).
"""

from __future__ import annotations

import json
import os
from typing import Any

from gmonlens.suites.model import STATUSES, BinaryProfile, SuiteRun, TestResult

SCHEMA = "gmonlens-test/1"
HOTTEST = 5


def _rel(base: str, path: str) -> str:
    return os.path.relpath(path, base)


def _seconds(samples: float, hz: int) -> float | None:
    return round(samples / hz, 6) if hz > 0 else None


def hottest(b: BinaryProfile, n: int = HOTTEST) -> list[dict[str, Any]]:
    """The `n` routines of most self time (then calls), as the index lists them."""
    ranked = sorted(b.routines, key=lambda r: (-r.self_samples, -r.calls, r.name))
    return [
        {
            "name": r.name,
            "self_seconds": _seconds(r.self_samples, b.hz),
            "total_seconds": _seconds(r.total_samples, b.hz),
            "calls": r.calls,
        }
        for r in ranked[:n]
        if r.self_samples > 0 or r.calls > 0
    ]


def binary_doc(base: str, b: BinaryProfile) -> dict[str, Any]:
    error = b.seconds_error
    return {
        "binary": _rel(base, b.binary),
        "profiles": [_rel(base, p) for p in b.profiles],
        "pids": list(b.pids),
        "samples": b.samples,
        "hz": b.hz,
        "seconds": _seconds(b.samples, b.hz),
        "seconds_error": round(error, 6) if error is not None else None,
        "calls": {r.name: r.calls for r in b.routines if r.calls > 0},
        "hottest": hottest(b),
        "problem": b.problem,
    }


_NO_BINARY: dict[str, Any] = {"binary": None, "profiles": [], "pids": [], "samples": 0.0, "hz": 0, "seconds": None,
              "seconds_error": None, "calls": {}, "hottest": [], "problem": None}  # fmt: skip


def entry_doc(base: str, t: TestResult) -> dict[str, Any]:
    s = t.spec
    doc: dict[str, Any] = {
        "name": s.name,
        "status": t.status,
        "exit_status": t.exit_status,
        "duration": round(t.duration, 6),
        "cpu_seconds": round(t.cpu_seconds, 6),
        "directory": t.directory,
        "output": t.output,
        "command": list(s.argv),
        "cwd": s.cwd,
        "labels": list(s.labels),
        "file": s.file,
        "line": s.line,
        "notes": list(t.notes),
        "unknown_profiles": [_rel(base, p) for p in t.unknown],
    }
    doc.update(binary_doc(base, t.binaries[0]) if t.binaries else dict(_NO_BINARY))
    doc["other_binaries"] = [binary_doc(base, b) for b in t.binaries[1:]]
    return doc


def _summary(run: SuiteRun) -> dict[str, Any]:
    out: dict[str, Any] = {"tests": len(run.tests)}
    out.update({status: run.count(status) for status in STATUSES})
    out["duration"] = round(sum(t.duration for t in run.tests), 6)
    binaries = []
    for binary in run.binaries:
        parts = [b for t in run.tests for b in t.binaries if b.binary == binary]
        samples = sum(b.samples for b in parts)
        hz = next((b.hz for b in parts if b.hz > 0), 0)
        binaries.append({
            "binary": _rel(run.out_dir, binary),
            "tests": len(parts),
            "profiles": sum(len(b.profiles) for b in parts),
            "samples": samples,
            "seconds": _seconds(samples, hz),
            "calls": sum(b.calls for b in parts),
        })  # fmt: skip
    out["binaries"] = binaries
    return out


def to_json(run: SuiteRun) -> dict[str, Any]:
    """The document (module docstring)."""
    return {
        "schema": SCHEMA,
        "runner": run.runner,
        "argv": list(run.argv),
        "cwd": run.cwd,
        "jobs": run.jobs,
        "per": run.per,
        "interrupted": run.interrupted,
        "helper": run.helper,
        "summary": _summary(run),
        "tests": [entry_doc(run.out_dir, t) for t in run.tests],
    }


def to_bytes(run: SuiteRun) -> bytes:
    return (json.dumps(to_json(run), indent=1) + "\n").encode("utf-8", "surrogateescape")
