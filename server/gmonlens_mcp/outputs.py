"""The tools' output schemas (JSON Schema, MCP 2025-06-18's `outputSchema`): what a successful
result's `structuredContent` holds. A tool error carries no structured content (its facts are the
JSON text after its message), so these describe answers only. Fields a later version may add are
allowed (no `additionalProperties: false`); the ones listed `required` are always present.
Units: seconds; samples are gprof's ticks (fractional where a bin straddles two routines); null
where a figure does not exist (no sampling rate, no line information, no call-graph index).
"""

from __future__ import annotations

from typing import Any

STR = {"type": "string"}
INT = {"type": "integer"}
NUM = {"type": "number"}
BOOL = {"type": "boolean"}


def maybe(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` or null."""
    return {"type": [schema["type"], "null"]} if len(schema) == 1 else {"anyOf": [schema, {"type": "null"}]}


def array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


def obj(props: dict[str, Any], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """An object of `props`, each required but those in `optional`."""
    return {"type": "object", "properties": props, "required": [k for k in props if k not in optional]}


SECONDS = maybe(NUM)
FILE = {**maybe(STR), "description": "source file, relative to the workspace folder when inside it"}
LINE = maybe(INT)
INDEX = {**maybe(INT), "description": "gprof's call-graph index ([N]); null where gprof prints none"}
REF = {**STR, "description": "a name of this routine no other routine has: give it to any tool as `routine`"}

ROUTINE = {
    "name": {**STR, "description": "as gprof prints it (demangled)"},
    "ref": REF,
    "symbol": {**STR, "description": "the raw (mangled) symbol"},
    "index": INDEX,
    "address": INT,
    "self_seconds": SECONDS,
    "self_error_seconds": SECONDS,
    "self_percent": NUM,
    "children_seconds": SECONDS,
    "total_seconds": SECONDS,
    "total_percent": NUM,
    "calls": INT,
    "recursive_calls": INT,
    "self_seconds_per_call": SECONDS,
    "total_seconds_per_call": SECONDS,
    "cycle": maybe(INT),
    "file": FILE,
    "line": LINE,
    "gprof_flat_line": STR,
}
ROUTINE_OPTIONAL = ("gprof_flat_line",)

ARC = {
    "name": STR,
    "ref": REF,
    "index": INDEX,
    "calls": INT,
    "of_calls": maybe(INT),
    "share_of_calls": maybe(NUM),
    "self_seconds": SECONDS,
    "children_seconds": SECONDS,
    "estimated": BOOL,
    "in_cycle": BOOL,
    "recursive": BOOL,
    "static_only": BOOL,
    "cycle": maybe(INT),
    "file": FILE,
    "line": LINE,
}
SITE = obj({"file": FILE, "line": LINE, "calls": INT})
LISTED_ARC = obj({**ARC, "call_sites": array(SITE), "propagated_seconds": SECONDS}, ("propagated_seconds",))

SUMMARY = obj(
    {
        "folder": STR,
        "program": STR,
        "profiles": array(STR),
        "sample_period_seconds": SECONDS,
        "hz": INT,
        "total_seconds": SECONDS,
        "total_samples": NUM,
        "propagated_seconds": SECONDS,
        "routines": INT,
        "routines_with_time": INT,
        "routines_called": INT,
        "arcs": INT,
        "cycles": array(obj({"number": INT, "members": array(STR), "calls": INT})),
        "has_histogram": BOOL,
        "has_call_graph": BOOL,
        "static_call_graph": BOOL,
        "baseline": maybe(STR),
        "health": array(STR),
        "notes": array(STR),
    }
)

TOP = obj(
    {
        "by": {"enum": ["self", "total"]},
        "total_seconds": SECONDS,
        "offset": INT,
        "total": {**INT, "description": "rows in the whole list"},
        "routines": array(obj(ROUTINE, ROUTINE_OPTIONAL)),
        "more": {**INT, "description": "rows after this page (ask again with offset + limit)"},
    }
)

ENTRY = obj(
    {
        **ROUTINE,
        "printed": BOOL,
        "spontaneous": BOOL,
        "parents": array(obj(ARC)),
        "children": array(obj(ARC)),
        "estimated": STR,
        "gprof_text": maybe(STR),
        "cycle_gprof_text": maybe(STR),
    },
    (*ROUTINE_OPTIONAL, "cycle_gprof_text"),
)


def arcs(who: str) -> dict[str, Any]:
    """`callers` or `callees`."""
    return obj(
        {
            "routine": STR,
            "ref": REF,
            "index": INDEX,
            "calls": INT,
            "recursive_calls": INT,
            who: array(LISTED_ARC),
            "more": INT,
            "estimated": STR,
        }
    )


_ROUTINE_LINE = obj(
    {
        "file": FILE,
        "line": LINE,
        "seconds": SECONDS,
        "percent": NUM,
        "percent_of_routine": NUM,
        "source": maybe(STR),
    }
)
_FILE_LINE = obj(
    {
        "line": INT,
        "seconds": SECONDS,
        "percent": NUM,
        "routine": STR,
        "routines": array(obj({"name": STR, "seconds": SECONDS})),
        "source": maybe(STR),
    }
)
HOT_LINES = {
    "type": "object",
    "description": "a routine's lines (`routine`, `ref`, `self_seconds`) or a file's (`file`, `seconds`)",
    "properties": {
        "routine": STR,
        "ref": REF,
        "self_seconds": SECONDS,
        "file": FILE,
        "seconds": SECONDS,
        "lines": {"type": "array", "items": {"anyOf": [_ROUTINE_LINE, _FILE_LINE]}},
        "more": INT,
    },
    "required": ["lines", "more"],
}

_INSTRUCTION = obj(
    {
        "address": INT,
        "text": {**STR, "description": "as objdump -d spells it"},
        "samples": NUM,
        "seconds": SECONDS,
        "percent": {**NUM, "description": "of the routine's self time"},
        "file": FILE,
        "line": LINE,
        "function": {**STR, "description": "the inlined function this code is from"},
        "label": STR,
        "target": INT,
        "calls": array(
            obj(
                {
                    "callee": STR,
                    "count": INT,
                    "seconds": SECONDS,
                    "estimate": BOOL,
                    "shared": BOOL,
                    "exact": BOOL,
                }
            )
        ),
    },
    ("function", "label", "target", "calls"),
)
_GAP = obj({"from": INT, "to": INT, "instructions": INT, "samples": NUM})
DISASSEMBLY = obj(
    {
        "routine": STR,
        "ref": REF,
        "symbol": STR,
        "address": INT,
        "end": INT,
        "file": FILE,
        "line": LINE,
        "self_seconds": SECONDS,
        "samples": NUM,
        "percent": NUM,
        "total_seconds": SECONDS,
        "machine": STR,
        "syntax": STR,
        "instructions_total": INT,
        "instructions": array(_INSTRUCTION),
        "sources": array(obj({"file": FILE, "line": INT, "source": maybe(STR)})),
        "truncated": BOOL,
        "omitted": obj({"instructions": INT, "samples": NUM, "seconds": SECONDS, "ranges": array(_GAP)}),
        "symbols": array(obj({"address": INT, "name": STR})),
    }
)

_CHANGE = obj(
    {"before": NUM, "after": NUM, "delta": NUM, "percent": maybe(NUM), "z": maybe(NUM), "verdict": STR}
)
COMPARE = obj(
    {
        "baseline": obj(
            {"binary": STR, "profiles": array(STR), "label": STR, "sample_period_seconds": SECONDS}
        ),
        "current": obj({"binary": STR, "profiles": array(STR), "sample_period_seconds": SECONDS}),
        "threshold": NUM,
        "normalized": BOOL,
        "scale": {**NUM, "description": "the baseline's figures scaled by this before testing (normalized)"},
        "total": _CHANGE,
        "slower": INT,
        "faster": INT,
        "new": INT,
        "gone": INT,
        "routines": array(
            obj(
                {
                    "name": STR,
                    "symbol": STR,
                    "status": STR,
                    "file": maybe(STR),
                    "self": _CHANGE,
                    "total": _CHANGE,
                    "calls_before": maybe(INT),
                    "calls_after": maybe(INT),
                }
            )
        ),
        "more": INT,
        "noise_model": STR,
    }
)

RECORD = obj(
    {
        "recording": {"type": "object", "description": "the recording's `gmonlens-record/1` document"},
        "output_tail": array(STR),
        "output_dropped": INT,
        "timed_out": BOOL,
    }
)

_SUITE_TEST = obj(
    {"name": STR, "status": maybe(STR), "duration_seconds": SECONDS, "seconds": SECONDS, "binary": maybe(STR)}
)
_REACHING = obj(
    {
        "test": STR,
        "status": maybe(STR),
        "calls": INT,
        "self_seconds": SECONDS,
        "total_seconds": SECONDS,
        "total_error_seconds": SECONDS,
        "samples": NUM,
    }
)
TESTS = {
    "type": "object",
    "description": "without `routine`: the suite's tests (`suite`, `tests`: a list); with it: the tests "
    "reaching it (`routine`, `binary`, `tests`: how many, `reached`, `reaching`)",
    "properties": {
        "suite": STR,
        "routine": STR,
        "binary": maybe(STR),
        "tests": {"anyOf": [array(_SUITE_TEST), INT]},
        "reached": INT,
        "reaching": array(_REACHING),
    },
    "required": ["tests"],
}
