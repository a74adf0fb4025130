"""The tools (their names are the interface): definitions with argument schemas, and handlers.

Each handler takes the current `View` and checked arguments and returns a `ToolResult`: structured
data (seconds, exact call counts, estimates marked, source files relative to the workspace folder)
and a short text. A `ToolFailure` (no profile, unknown or ambiguous routine, a missing file)
becomes an `isError` result naming the problem; bad arguments are JSON-RPC's -32602 (`schema`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from .rpc import INVALID_PARAMS, RpcError, ToolResult
from .schema import check
from .workspace import ToolFailure, View, Workspace

Handler = Callable[[View, dict[str, Any]], ToolResult]
WorkspaceHandler = Callable[[Workspace, dict[str, Any]], ToolResult]  # a tool that needs no loaded profile

_ROUTINE = {
    "type": "string",
    "minLength": 1,
    "maxLength": 4096,
    "description": "The routine: any name gprof prints for it (`Shape::area() const`; a static "
    "with its file, `clamp (render.c)`; `match [12]`), the `ref` a tool listed it under, its call-graph "
    "index (`[12]`), an address inside it (`0x401136`), the mangled symbol, the name without "
    "parameters (`Shape::area`), template arguments or anonymous namespaces (`Table::index`), the "
    "bare identifier (`area`), or `file.c:name`",
}
_FILE = {
    "type": "string",
    "minLength": 1,
    "maxLength": 4096,
    "description": "Source file (a path or its last components, `util.c`) choosing among routines of one "
    "name: the file declaring it or the file gprof names a static by (`render.c`)",
}


DEFAULT_LISTING = 40  # instructions in a disassembly by default (about 4 KB of text)

_OFFSET = {
    "type": "integer",
    "minimum": 0,
    "maximum": 1 << 31,
    "default": 0,
    "description": "Rows to skip (the next page: offset + limit); `more` says how many follow",
}


def _limit(default: int, most: int) -> dict[str, Any]:
    return {
        "type": "integer",
        "minimum": 1,
        "maximum": most,
        "default": default,
        "description": "At most this many rows",
    }


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    properties: dict[str, Any]
    required: tuple[str, ...]
    handler: Handler | None
    output: dict[str, Any]  # the outputSchema of its structured result (`outputs`)
    runs: WorkspaceHandler | None = None  # instead of `handler`: the tool runs a command (`record`)
    reads: WorkspaceHandler | None = None  # instead: the tool reads the workspace's files (`check`)

    @property
    def schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": self.properties,
            "required": list(self.required),
            "additionalProperties": False,
        }

    def definition(self, version: str) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "description": self.description, "inputSchema": self.schema}
        if version >= "2025-06-18":
            out["title"] = self.title
            out["outputSchema"] = self.output
        if version >= "2025-03-26":
            reads = self.runs is None  # a tool that runs the user's command writes and is not idempotent
            out["annotations"] = {
                "title": self.title,
                "readOnlyHint": reads,
                "destructiveHint": False,
                "idempotentHint": reads,
                "openWorldHint": not reads,
            }
        return out


def _tools() -> list[Tool]:
    from . import handlers as h
    from . import outputs as o
    from . import test_tools as t

    routine = {"routine": _ROUTINE, "file": _FILE}
    return [
        Tool("profile_summary", "Profile summary",
             "The profiled program and its gprof profile files (gmon.out), the sample period, total "
             "time and samples, counts of routines, arcs and cycles, and health notes (few samples, "
             "a binary newer than its profile, how the files were found).",
             {}, (), h.profile_summary, o.SUMMARY),
        Tool("top_routines", "Hottest routines",
             "The hottest routines, as gprof ranks them: by self time (the flat profile's order) or by "
             "total time, self plus children (the call graph's order). Each with calls, self time ± "
             "its sampling error (sqrt(samples) x sample period), percentages, seconds per call, "
             "source file and line, and gprof's flat-profile line.",
             {"by": {"type": "string", "enum": ["self", "total"], "default": "self",
                     "description": "self: time in the routine itself; total: self plus its callees' time"},
              "limit": _limit(10, 500), "offset": _OFFSET}, (), h.top_routines, o.TOP),
        Tool("routine_entry", "Call-graph entry",
             "A routine's entry of gprof's call graph: its figures, the callers (parents) and callees "
             "(children) lines with call counts and times, gprof's text of the entry, and what is "
             "estimated (time on caller/callee lines is split in proportion to calls).",
             routine, ("routine",), h.routine_entry, o.ENTRY),
        Tool("callers", "Callers",
             "Who calls a routine: for each caller the call count (of the routine's total calls), the "
             "source lines of the calls, and the time gprof propagates to that caller (estimated).",
             {**routine, "limit": _limit(50, 1000)}, ("routine",), h.callers, o.arcs("callers")),
        Tool("callees", "Callees",
             "What a routine calls: for each callee the call count (of the callee's total calls), the "
             "source lines of the calls, and the callee time gprof charges to this routine (estimated).",
             {**routine, "limit": _limit(50, 1000)}, ("routine",), h.callees, o.arcs("callees")),
        Tool("hot_lines", "Hot source lines",
             "Line heat: the self time of source lines (histogram samples mapped through the DWARF line "
             "table; inlined code lands on its own lines), hottest first, for a routine (`routine`) or a "
             "source file (`file` alone).",
             {**routine, "routine": {**_ROUTINE, "description": "The routine whose lines to show; omit to show a file's"},
              "file": {**_FILE, "description": "The source file whose lines to show (alone), or the file choosing among routines of one name"},
              "limit": _limit(20, 1000)}, (), h.hot_lines, o.HOT_LINES),
        Tool("disassembly", "Disassembly",
             "The annotated machine code of a routine (the `gmonlens disasm` listing): per instruction "
             "its samples, seconds and share of the routine, source file and line (with the source "
             "text), the inlined function, calls with gprof's counts and estimated time. At most "
             "`limit` instructions: the routine's hot region (its hottest instructions with those "
             "around them); `truncated` and `omitted` say what was left out.",
             {**routine, "limit": _limit(DEFAULT_LISTING, 5000)}, ("routine",), h.disassembly, o.DISASSEMBLY),
        Tool("compare_with_baseline", "Compare with a baseline",
             "gmonlens diff: the current profile against a baseline profile (and optionally the binary "
             "that wrote it), routines matched across builds, each change of self and total time "
             "tested against sampling noise (z >= threshold: slower/faster, else noise), largest "
             "changes first. Without baseline_profiles, the baseline configured for the workspace.",
             {"baseline_profiles": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 4096},
                                    "minItems": 1, "maxItems": 256,
                                    "description": "Baseline profile files or globs (relative to the workspace folder)"},
              "baseline_binary": {"type": "string", "minLength": 1, "maxLength": 4096,
                                  "description": "The binary that wrote the baseline (default: the current one)"},
              "threshold": {"type": "number", "minimum": 0, "maximum": 1000, "default": 3.0,
                            "description": "|z| at or above which a change is beyond sampling noise"},
              "normalize": {"type": "boolean", "default": False,
                            "description": "Compare shares of the runs' total time (runs of different lengths)"},
              "limit": _limit(20, 1000)}, (), h.compare_with_baseline, o.COMPARE),
        Tool("tests", t.TESTS_TITLE, t.TESTS_DESCRIPTION,
             {**routine, "routine": {**_ROUTINE, "description": t.ROUTINE_DESCRIPTION}, "limit": _limit(50, 100_000)},
             (), t.tests, o.TESTS),
    ]  # fmt: skip


def _check_tool() -> Tool:
    from . import check_tool as c

    return Tool(name="check", title=c.TITLE, description=c.DESCRIPTION, properties=c.PROPERTIES, required=(),
                handler=None, output=c.OUTPUT, reads=c.check)  # fmt: skip


def _record_tool() -> Tool:
    from . import outputs, record

    return Tool(
        "record", "Record a profile", record.DESCRIPTION, record.PROPERTIES, ("command",), None, outputs.RECORD,
        record.record,
    )  # fmt: skip


class Tools:
    """The MCP application: the tools over one `Workspace` (rpc.App); `record` only when
    `allow_run` (`gmonlens mcp --allow-run`)."""

    def __init__(self, workspace: Workspace, allow_run: bool = False) -> None:
        from .test_tools import TEST, WITH_TEST, TestViews

        self.workspace = workspace
        self.test_views = TestViews(workspace)  # `test`: one test's profile (test_tools)
        tools = [
            replace(t, properties={**t.properties, "test": TEST}) if t.name in WITH_TEST else t
            for t in _tools()
        ]
        self.tools = {t.name: t for t in [*tools, _check_tool()]}
        if allow_run:
            self.tools["record"] = _record_tool()

    def list_tools(self, version: str) -> list[dict[str, Any]]:
        return [t.definition(version) for t in self.tools.values()]

    def warm(self) -> None:
        with contextlib.suppress(ToolFailure):  # said by the first tool called
            self.workspace.view()

    def call_tool(self, name: str, arguments: Any) -> ToolResult:
        tool = self.tools.get(name)
        if tool is None:
            raise RpcError(INVALID_PARAMS, f"unknown tool: {name} (tools: {', '.join(self.tools)})")
        args = check(tool.schema, arguments)
        try:
            if tool.runs is not None:
                return tool.runs(self.workspace, args)
            if tool.reads is not None:
                return tool.reads(self.workspace, args)
            assert tool.handler is not None
            from .test_tools import view_for

            return tool.handler(view_for(self.workspace, self.test_views, args), args)
        except ToolFailure as exc:
            return ToolResult({"error": exc.message, **exc.data}, exc.message, is_error=True)


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
