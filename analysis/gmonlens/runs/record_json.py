"""Recording -> JSON: `gmonlens record --json` and DIR/record.json, schema `gmonlens-record/1`
(pure; README, "gmonlens record", gives it field by field). Times in seconds, errors and shares in
percent; paths absolute.
"""

from __future__ import annotations

import json
from typing import Any

from gmonlens.runs.collect import ProcessProfile
from gmonlens.runs.diagnose import signal_name
from gmonlens.runs.launch import RunOutcome
from gmonlens.runs.preflight import Preflight
from gmonlens.runs.results import Recording
from gmonlens.runs.summary import BinarySummary

SCHEMA = "gmonlens-record/1"


def _run(n: int, r: RunOutcome) -> dict[str, Any]:
    return {
        "run": n,
        "pid": r.pid,
        "exit_code": r.exit_code,
        "signal": signal_name(r.signal) if r.signal is not None else None,
        "status": r.status,
        "user_seconds": r.user_seconds,
        "system_seconds": r.system_seconds,
        "cpu_seconds": r.cpu_seconds,
        "wall_seconds": r.wall_seconds,
        "glibc_messages": [line for _kind, line in r.messages],
        "interrupted": signal_name(r.interrupted) if r.interrupted else None,
        "orphans_reaped": r.adopted,
        "orphans_left": r.orphans_left,
    }


def _profile(p: ProcessProfile) -> dict[str, Any]:
    return {
        "path": p.path,
        "pid": p.pid,
        "run": p.run,
        "binary": p.binary,
        "fit": ("exact" if p.exact else "loose") if p.binary else None,
        "found_by": p.found_by or None,
        "samples": p.samples,
        "arcs": p.arcs,
        "hz": p.hz,
        "problem": p.problem,
    }


def _binary(b: BinarySummary, rec: Recording) -> dict[str, Any]:
    return {
        "binary": b.binary,
        "profiles": list(b.profiles),
        "pids": sorted(set(b.pids)),
        "samples": b.samples,
        "hz": b.hz,
        "seconds": b.seconds,
        "calls": b.calls,
        "top": [
            {
                "name": r.name,
                "self_seconds": r.self_seconds,
                "self_percent": r.self_percent,
                "samples": r.samples,
                "error_percent": r.error_percent,
                "calls": r.calls,
                "file": r.file,
                "line": r.line or None,
            }
            for r in b.top
        ],
        "warnings": list(b.warnings),
        "problem": b.problem,
        "report": ["gmonlens", "report", b.binary, *b.profiles],
    }


def _preflight(p: Preflight | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {
        "binary": p.binary,
        "profiling_calls": list(p.profiling_calls),
        "startup_linked": p.startup_linked,
        "static": p.static,
        "units": p.units,
        "units_without_pg": [
            {"name": u.name, "comp_dir": u.comp_dir, "producer": u.producer} for u in p.units_without_pg
        ],
        "units_unknown": p.units_unknown,
        "producers_problem": p.producers_problem,
        "arcs": {
            "glibc_limit": p.arcs.default_limit,
            "direct_call_sites": p.arcs.direct_sites,
            "indirect_call_sites": p.arcs.indirect_sites,
            "requested": p.arcs.requested,
        },
    }


def to_json(rec: Recording) -> dict[str, Any]:
    """The recording as schema `gmonlens-record/1`."""
    c = rec.command
    prec = rec.precision
    return {
        "schema": SCHEMA,
        "command": {
            "argv": list(c.argv),
            "cwd": rec.cwd,
            "path": c.path,
            "kind": c.kind,
            "interpreter": list(c.interpreter),
            "profiled_binaries": [b.binary for b in rec.binaries],
        },
        "out_dir": rec.out_dir,
        "exit_status": rec.exit_status,
        "command_status": rec.command_status,
        "usable": rec.usable,
        "preflight": _preflight(rec.preflight),
        "helper": {
            "used": rec.helper.used,
            "path": rec.helper.path,
            "compiler": list(rec.helper.compiler),
            "problem": rec.helper.problem,
        },
        "runs": [_run(n, r) for n, r in enumerate(rec.runs, 1)],
        "cpu_seconds": sum(r.cpu_seconds for r in rec.runs),
        "profiles": [_profile(p) for p in rec.profiles],
        "left_alone": list(rec.left_alone),
        "binaries": [_binary(b, rec) for b in rec.binaries],
        "processes": [
            {
                "pid": h.pid,
                "ppid": h.ppid,
                "programs": list(h.programs),
                "exited": h.exited,
                "signal": signal_name(h.signal) if h.signal else None,
                "cpu_seconds": h.cpu_seconds,
                "arcs_buffer": list(h.arcs) if h.arcs else None,
            }
            for h in rec.processes
        ],
        "precision": {
            "target_percent": prec.target_percent,
            "max_runs": prec.max_runs,
            "runs": len(rec.runs),
            "binary": prec.binary,
            "achieved_percent": prec.achieved_percent,
            "met": prec.met,
            "history": [{"run": n, "error_percent": e, "samples": s} for n, e, s in prec.history],
        },
        "diagnosis": [
            {
                "code": d.code,
                "severity": d.severity,
                "message": d.message,
                "fix": d.fix,
                "rerun": list(d.rerun),
            }
            for d in rec.diagnosis
        ],
    }


def to_json_bytes(rec: Recording) -> bytes:
    """`to_json` as UTF-8 text (file names' undecodable bytes kept as surrogate escapes)."""
    return (json.dumps(to_json(rec), indent=1) + "\n").encode("utf-8", "surrogateescape")
