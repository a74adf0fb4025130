"""The JSON gmonlens's own messages carry (PROTOCOL.md), typed and built here: the
`gmonlens/status` notification, the `gmonlens/lineHeat`, `gmonlens/callGraph` and
`gmonlens/flameGraph` results, the results of the `workspace/executeCommand` commands (`gmonlens.tests`
and `gmonlens.selectTest` among them), the lens
command's arguments and the call hierarchy items' data; and the parameters read from the client
(`CallGraphQuery`). The `gmonlens/disassembly` result is typed here and built by
`listings.document` (with the listing document it also serves).

Each type has an example message in `protocol/examples/` (protocol/README.md), written by
`tests/protocol/` from a real session and checked against these types, PROTOCOL.md and the VS Code
extension's `src/protocol.ts`: a type without an example fails those tests.

Units as on the wire: seconds rounded to 6 decimals, percents to 3 or 4, lines 0-based, `uri` a
file URI (None/null without source)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict, cast

from gmonlens.common.model import Profile, Routine
from gmonlens.output.flame import FlameTree, frame_name
from gmonlens.output.graph import CallGraph
from gmonlens.profile.certainty import Health
from gmonlens.profile.diff import RoutineDiff
from gmonlens_ide.baseline import Comparison, change_text
from gmonlens_ide.figures import calls_text
from gmonlens_ide.heat_index import FileHeat, HeatIndex, HotLine
from gmonlens_ide.index import Place
from gmonlens_ide.pinstore import PinnedBaseline
from gmonlens_ide.suite_views import TestsListing

from . import uris

# ---- shared pieces ---------------------------------------------------------------------------


class LinePosition(TypedDict):
    """An LSP position as JSON (0-based line, UTF-16 character)."""

    line: int
    character: int


def uri_of(path: str) -> str:
    return uris.from_fs_path(path)


def _uri(place: Place | None) -> str | None:
    return uri_of(place.path) if place else None


def _line(place: Place | None) -> int | None:
    return max(place.line - 1, 0) if place else None


def _s(value: float | None) -> float | None:
    """Seconds on the wire: rounded to the microsecond; null without a sampling rate."""
    return None if value is None else round(value, 6)


# ---- gmonlens/status -------------------------------------------------------------------------


class BaselineStatus(TypedDict):
    label: str
    totalBefore: float
    totalAfter: float
    deltaSeconds: float | None
    percent: float | None  # null when the baseline's total is 0
    verdict: str  # "up", "down" or "noise"
    regressions: int
    improvements: int


class HealthEntry(TypedDict):
    """One thing that makes the whole profile less trustworthy, and its fix."""

    code: str
    message: str
    fix: str


class Status(TypedDict):
    state: Literal["loading", "loaded", "problem", "idle"]
    message: str
    totalSeconds: float | None
    routines: int
    folder: str
    baseline: BaselineStatus | None
    health: list[HealthEntry]  # empty when healthy and while nothing is loaded


def baseline_status(cmp: Comparison | None) -> BaselineStatus | None:
    if cmp is None:
        return None
    t = cmp.diff.total
    return {
        "label": cmp.label,
        "totalBefore": round(t.before, 6),
        "totalAfter": round(t.after, 6),
        "deltaSeconds": round(t.delta, 6),
        "percent": None if t.percent is None else round(t.percent, 3),
        "verdict": t.verdict,
        "regressions": len(cmp.diff.regressions()),
        "improvements": len(cmp.diff.improvements()),
    }


def status(
    state: Literal["loading", "loaded", "problem", "idle"],
    message: str,
    folder: str,
    total_seconds: float | None,
    routines: int,
    cmp: Comparison | None,
    health: Sequence[Health],
) -> Status:
    """The `gmonlens/status` notification (`total_seconds`, `routines`: 0 without a profile)."""
    return {
        "state": state,
        "message": message,
        "totalSeconds": _s(total_seconds),
        "routines": routines,
        "folder": folder,
        "baseline": baseline_status(cmp),
        "health": [{"code": h.code, "message": h.message, "fix": h.fix} for h in health],
    }


# ---- lens command and call hierarchy data ----------------------------------------------------


def lens_arguments(path: str, start: LinePosition, symbol: str) -> list[Any]:
    """`gmonlens.showCallers`'s arguments in a lens: document URI, position, symbol (the routine
    among several declared on the line)."""
    return [uri_of(path), start, symbol]


class ItemData(TypedDict):
    """A call hierarchy item's `data`: the routine, its profile's generation and raw name."""

    routine: int
    generation: int
    name: str


def item_data(rid: int, generation: int, name: str) -> ItemData:
    return {"routine": rid, "generation": generation, "name": name}


# ---- gmonlens/lineHeat -----------------------------------------------------------------------


class RoutineSeconds(TypedDict):
    name: str
    seconds: float | None


class HeatLine(TypedDict):
    line: int
    seconds: float | None
    percent: float
    routine: str
    routines: list[RoutineSeconds]
    samples: float
    errSeconds: float | None  # one standard error of the sampling


class LineHeat(TypedDict):
    uri: str
    totalSeconds: float | None
    lines: list[HeatLine]


def line_err(h: HotLine) -> float | None:
    """The line's standard error in seconds: sqrt(samples) x period = seconds / sqrt(samples);
    None without a sampling rate."""
    if h.seconds is None:
        return None
    return h.seconds / h.samples**0.5 if h.samples > 0 else 0.0


def line_heat(uri: str, heat: HeatIndex, file_heat: FileHeat | None) -> LineHeat:
    """The `gmonlens/lineHeat` result: every line of the file with time."""
    return {
        "uri": uri,
        "totalSeconds": _s(heat.total_seconds),
        "lines": [
            {
                "line": h.line - 1,
                "seconds": _s(h.seconds),
                "percent": round(h.percent, 4),
                "routine": h.routine,
                "routines": [{"name": n, "seconds": _s(s)} for n, s in h.routines],
                "samples": round(h.samples, 3),
                "errSeconds": _s(line_err(h)),
            }
            for h in (file_heat.lines if file_heat else ())
        ],
    }


# ---- commands --------------------------------------------------------------------------------


class Hottest(TypedDict):
    """A `gmonlens.hottest` entry."""

    name: str
    selfSeconds: float | None
    totalSeconds: float | None
    percent: float
    calls: str
    uri: str | None
    line: int | None


def hottest_entry(profile: Profile, r: Routine, place: Place | None) -> Hottest:
    base = profile.print_ticks if profile.print_ticks > 0 else 1.0
    return {
        "name": r.display_name,
        "selfSeconds": _s(profile.seconds(r.prop_self_ticks)),
        "totalSeconds": _s(profile.seconds(r.total_ticks)),
        "percent": round(100.0 * r.total_ticks / base, 3),
        "calls": calls_text(r),
        "uri": _uri(place),
        "line": _line(place),
    }


class CallSite(TypedDict):
    uri: str
    line: int


class Caller(TypedDict):
    """A `gmonlens.showCallers` entry: one caller of the routine, with its call sites."""

    name: str
    calls: int
    selfSeconds: float | None
    childrenSeconds: float | None
    uri: str | None
    line: int | None
    callSites: list[CallSite]


def caller_entry(
    profile: Profile, arc_index: int, place: Place | None, sites: Sequence[tuple[str, int]]
) -> Caller:
    """The caller of arc `profile.arcs[arc_index]`, declared at `place`; `sites`: (file, 1-based
    line) of its calls."""
    arc = profile.arcs[arc_index]
    return {
        "name": profile.routines[arc.parent].display_name,
        "calls": arc.count,
        "selfSeconds": _s(profile.seconds(arc.self_ticks)),
        "childrenSeconds": _s(profile.seconds(arc.child_ticks)),
        "uri": _uri(place),
        "line": _line(place),
        "callSites": [{"uri": uri_of(f), "line": ln - 1} for f, ln in sites],
    }


class Pinned(TypedDict):
    """A `gmonlens.pinBaseline` entry: where the copies went."""

    folder: str
    binary: str
    profiles: list[str]


def pinned(p: PinnedBaseline) -> Pinned:
    return {"folder": p.folder, "binary": p.binary, "profiles": list(p.profiles)}


class TestEntry(TypedDict):
    """A test of a `gmonlens test` folder (`gmonlens.tests`)."""

    name: str
    status: str | None  # its own verdict: passed, failed, skipped, timeout, not run, interrupted
    duration: float | None  # wall seconds
    seconds: float | None  # profiled seconds of its main binary; null without a sampling rate
    binary: str | None  # its main binary (a path)


class TestsList(TypedDict):
    """`gmonlens.tests` and `gmonlens.selectTest`: a folder's suite and what the folder loads."""

    folder: str  # the workspace folder's URI
    suite: str | None  # the `gmonlens test` folder (a path), null when none is found
    mode: Literal["auto", "suite", "test"]  # discovery's profiles, the whole suite, one test
    selected: str | None  # the test loaded (mode "test")
    tests: list[TestEntry]
    problem: str | None


def tests_list(folder: str, listing: TestsListing) -> TestsList:
    """The wire form of `suite_views.listing`'s answer for the folder of URI `folder`."""
    choice = listing.selected
    mode: Literal["auto", "suite", "test"] = (
        "auto" if choice is None else "suite" if choice.test is None else "test"
    )
    tests: list[TestEntry] = []
    for t in listing.suite.tests if listing.suite else ():
        main = t.main
        tests.append({"name": t.name, "status": t.status, "duration": _s(t.duration),
                      "seconds": _s(main.seconds) if main else None, "binary": main.binary if main else None})  # fmt: skip
    return {
        "folder": folder,
        "suite": listing.suite.path if listing.suite else None,
        "mode": mode,
        "selected": choice.test if choice is not None else None,
        "tests": tests,
        "problem": listing.problem,
    }


class ChangeEntry(TypedDict):
    """A `gmonlens.changes` entry (before/after null on the missing side)."""

    name: str
    kind: str  # "regression", "improvement", "new", "gone"
    status: str  # "matched", "renamed", "new", "gone"
    change: str
    selfBefore: float | None
    selfAfter: float | None
    selfDelta: float
    selfPercent: float | None
    selfZ: float
    totalBefore: float | None
    totalAfter: float | None
    totalDelta: float
    totalPercent: float | None
    totalZ: float
    callsBefore: int | None
    callsAfter: int | None
    uri: str | None
    line: int | None
    folder: str


def change_entry(r: RoutineDiff, kind: str, place: Place | None, folder: str) -> ChangeEntry:
    """Routine `r` changed against the baseline (`place`: its current declaration)."""
    b, a = r.before, r.after
    return {
        "name": r.display_name,
        "kind": kind,
        "status": r.status,
        "change": change_text(r) if kind != "gone" else "gone since baseline",
        "selfBefore": round(b.self_seconds, 6) if b else None,
        "selfAfter": round(a.self_seconds, 6) if a else None,
        "selfDelta": round(r.self.delta, 6),
        "selfPercent": None if r.self.percent is None else round(r.self.percent, 3),
        "selfZ": round(r.self.z, 3),
        "totalBefore": round(b.total_seconds, 6) if b else None,
        "totalAfter": round(a.total_seconds, 6) if a else None,
        "totalDelta": round(r.total.delta, 6),
        "totalPercent": None if r.total.percent is None else round(r.total.percent, 3),
        "totalZ": round(r.total.z, 3),
        "callsBefore": b.calls if b else None,
        "callsAfter": a.calls if a else None,
        "uri": _uri(place),
        "line": _line(place),
        "folder": folder,
    }


# ---- gmonlens/callGraph ----------------------------------------------------------------------


MAX_DEPTH = 10
MAX_NODES = 2000


@dataclass(frozen=True)
class CallGraphQuery:
    """The `gmonlens/callGraph` parameters, read leniently (a value of the wrong type is its
    default; numbers clamped to their range)."""

    uri: str | None  # textDocument.uri
    position: LinePosition | None  # set when centred on the routine under the cursor (at `uri`)
    folder: object  # a folder URI (else the document's, else the first folder)
    routine: object  # an id of an earlier answer's generation
    generation: object
    name: object  # raw or demangled name, when the generation moved on
    whole: bool
    depth: int
    max_nodes: int
    node_thres: float
    edge_thres: float


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _number(obj: Any, key: str, default: float, lo: float, hi: float) -> float:
    v = _get(obj, key)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return default
    return float(min(max(v, lo), hi))


def call_graph_query(params: Any, node_default: float, edge_default: float) -> CallGraphQuery:
    """Read the request's parameters (a dict or pygls's attribute object); `*_default`: the
    whole program's default thresholds."""
    whole = _get(params, "whole") is True
    uri = _get(_get(params, "textDocument"), "uri")
    position = _get(params, "position")
    pos: LinePosition | None = None
    if isinstance(uri, str) and position is not None and not whole:
        pos = {"line": int(_get(position, "line", 0)), "character": int(_get(position, "character", 0))}
    return CallGraphQuery(
        uri=uri if isinstance(uri, str) else None,
        position=pos,
        folder=_get(params, "folder", uri),
        routine=_get(params, "routine"),
        generation=_get(params, "generation"),
        name=_get(params, "name"),
        whole=whole,
        depth=int(_number(params, "depth", 2, 0, MAX_DEPTH)),
        max_nodes=int(_number(params, "maxNodes", 500, 1, MAX_NODES)),
        node_thres=_number(params, "nodeThreshold", node_default if whole else 0.0, 0.0, 100.0),
        edge_thres=_number(params, "edgeThreshold", edge_default if whole else 0.0, 0.0, 100.0),
    )


class GraphNode(TypedDict):
    id: int
    name: str
    displayName: str
    selfSeconds: float | None
    totalSeconds: float | None
    percent: float
    selfPercent: float
    calls: int
    recursiveCalls: int
    cycle: int | None
    uri: str | None
    line: int | None


class GraphEdge(TypedDict):
    caller: int
    callee: int
    calls: int
    seconds: float | None
    percent: float
    inCycle: bool
    # the time along it is gprof's split (the callee has several callers); None while not known
    estimated: bool | None


class GraphCycle(TypedDict):
    number: int
    members: list[int]
    allMembers: list[int]
    selfSeconds: float | None
    totalSeconds: float | None
    percent: float
    calls: int
    internalCalls: int


class CallGraphResult(TypedDict):
    folder: str
    generation: int
    center: int | None
    depth: int | None
    nodeThreshold: float
    edgeThreshold: float
    totalSeconds: float | None
    prunedNodes: int
    prunedEdges: int
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    cycles: list[GraphCycle]
    certaintyPending: bool  # the edges' `estimated` not known yet (null): ask again later


def _seconds(p: Profile) -> Callable[[float], float | None]:
    return p.seconds


def _cycle(p: Profile, number: int, members: list[int]) -> GraphCycle:
    """A cycle as gprof's `<cycle N as a whole>` entry; `members` are those among the nodes."""
    c = p.cycle(number)
    sec = _seconds(p)
    return {
        "number": number,
        "members": members,
        "allMembers": list(c.members),
        "selfSeconds": _s(sec(c.prop_self_ticks)),
        "totalSeconds": _s(sec(c.total_ticks)),
        "percent": round(100.0 * c.total_ticks / p.print_ticks, 4) if p.print_ticks > 0 else 0.0,
        "calls": c.calls,
        "internalCalls": c.self_calls,
    }


def _nodes(p: Profile, g: CallGraph, places: Mapping[int, Place | None]) -> list[GraphNode]:
    sec = _seconds(p)
    nodes: list[GraphNode] = []
    for n in g.nodes:
        place = places.get(n.routine)
        known = place if place and place.resolved else None
        nodes.append(
            {
                "id": n.routine,
                "name": n.name,
                "displayName": n.display_name,
                "selfSeconds": _s(sec(n.self_ticks)),
                "totalSeconds": _s(sec(n.total_ticks)),
                "percent": round(n.percent, 4),
                "selfPercent": round(n.self_percent, 4),
                "calls": n.calls,
                "recursiveCalls": n.self_calls,
                "cycle": n.cycle or None,
                "uri": _uri(known),
                "line": _line(known),
            }
        )
    return nodes


def call_graph(
    p: Profile,
    generation: int,
    folder: str,
    g: CallGraph,
    places: Mapping[int, Place | None],
    estimated: Mapping[tuple[int, int], bool] | None,
    depth: int | None,
    node_thres: float,
    edge_thres: float,
) -> CallGraphResult:
    """The `gmonlens/callGraph` result for graph `g` of profile `p` (`places`: the nodes'
    declarations; `estimated`: (caller, callee) -> whether the edge's time is gprof's split, for
    the edges outside cycles, or None while the certainty is computing: every edge's `estimated`
    is then null and `certaintyPending` true; `depth`: None for the whole program)."""
    sec = _seconds(p)
    cycles: dict[int, list[int]] = {}
    for n in g.nodes:
        if n.cycle:
            cycles.setdefault(n.cycle, []).append(n.routine)
    return {
        "folder": folder,
        "generation": generation,
        "center": g.center if g.center >= 0 else None,
        "depth": depth,
        "nodeThreshold": node_thres,
        "edgeThreshold": edge_thres,
        "totalSeconds": _s(sec(g.total_ticks)),
        "prunedNodes": g.pruned_nodes,
        "prunedEdges": g.pruned_edges,
        "nodes": _nodes(p, g, places),
        "edges": [
            {
                "caller": e.parent,
                "callee": e.child,
                "calls": e.count,
                "seconds": _s(sec(e.ticks)),
                "percent": round(e.percent, 4),
                "inCycle": e.in_cycle,
                "estimated": None if estimated is None else not e.in_cycle and estimated[(e.parent, e.child)],
            }
            for e in g.edges
        ],
        "cycles": [_cycle(p, k, members) for k, members in sorted(cycles.items())],
        "certaintyPending": estimated is None,
    }


# ---- gmonlens/flameGraph ---------------------------------------------------------------------


class _FlameFrame(TypedDict):
    parent: int
    routine: int | None
    cycle: int | None
    name: str
    seconds: float | None
    selfSeconds: float | None
    estimated: bool
    depth: int
    uri: str | None
    line: int | None


class FlameFrame(_FlameFrame, total=False):
    # a member's frame inside its cycle's (the cycle's number): the cycle's frame opened into its
    # members, each as wide as gprof's cycle entry says; that split is gprof's estimate
    cycleMember: int


class FlameGraphResult(TypedDict):
    folder: str
    generation: int
    totalSeconds: float | None
    minPercent: float
    truncated: bool
    frames: list[FlameFrame]


def flame_graph(
    p: Profile,
    generation: int,
    folder: str,
    tree: FlameTree,
    places: Mapping[int, Place | None],
    min_percent: float,
) -> FlameGraphResult:
    """The `gmonlens/flameGraph` result: `tree`'s frames in depth-first order (parents first),
    seconds rounded to microseconds; `places`: routine id -> declaration (a cycle's frame takes
    its hottest member's)."""

    def sec(t: float) -> float | None:
        return _s(p.seconds(t))

    frames: list[FlameFrame] = []
    for f in tree.frames:
        rid = p.cycle(f.cycle).member_order[0] if f.cycle else f.routine
        place = places.get(rid) if rid >= 0 else None
        resolved = place if place is not None and place.resolved else None
        frame: FlameFrame = {
            "parent": f.parent,
            "routine": f.routine if f.routine >= 0 else None,
            "cycle": f.cycle or None,
            "name": frame_name(p, f),
            "seconds": sec(f.width),
            "selfSeconds": sec(f.self_ticks),
            "estimated": f.estimated,
            "depth": f.depth,
            "uri": _uri(resolved),
            "line": _line(resolved),
        }
        if f.member_of:
            frame["cycleMember"] = f.member_of
        frames.append(frame)
    return {
        "folder": folder,
        "generation": generation,
        "totalSeconds": sec(tree.total_ticks),
        "minPercent": min_percent,
        "truncated": tree.truncated,
        "frames": frames,
    }


# ---- gmonlens/disassembly --------------------------------------------------------------------


class DisasmCall(TypedDict):
    """A call through one call instruction: gprof's count and the time it propagates along the
    arc (an estimate); the callee's definition (`path`, 1-based `sourceLine`) when found."""

    callee: str
    count: int
    seconds: float | None  # None without a sampling rate
    path: str | None
    sourceLine: int | None


class DisasmInstruction(TypedDict):
    """One instruction: its 0-based text line, samples, seconds and percent of the routine's self
    time; its source as BFD records it (`file`, None without line information; 1-based
    `sourceLine`, 0 when unknown) and as found in the workspace (`path`)."""

    line: int
    address: int
    samples: float
    seconds: float | None  # None without a sampling rate
    percent: float
    file: str | None
    path: str | None
    sourceLine: int
    calls: list[DisasmCall]


class DisasmSource(TypedDict):
    """A text line of the listing that shows a source line."""

    line: int
    file: str
    path: str | None
    sourceLine: int


class Disassembly(TypedDict):
    """The `gmonlens/disassembly` (and `gmonlens.showDisassembly`) result: the listing document."""

    uri: str
    folder: str
    generation: int
    routine: int
    name: str
    displayName: str
    selfSeconds: float | None  # None without a sampling rate
    totalSeconds: float | None
    text: str
    instructions: list[DisasmInstruction]
    sources: list[DisasmSource]


class DisasmError(TypedDict):
    """The `gmonlens/disassembly` result for a routine without a listing: one line saying why."""

    error: str


# ---- gmonlens/record -------------------------------------------------------------------------
# The answer is `gmonlens record --json`'s document, schema gmonlens-record/1, as the engine's
# `gmonlens.runs.record_json.to_json` builds it (snake_case: the same document as DIR/record.json
# and the MCP tool's; README "gmonlens record" gives it field by field).


class RecordCommand(TypedDict):
    argv: list[str]
    cwd: str
    path: str
    kind: str  # "elf", "script" or "other"
    interpreter: list[str]
    profiled_binaries: list[str]


class RecordUnit(TypedDict):
    name: str
    comp_dir: str
    producer: str


class RecordArcs(TypedDict):
    glibc_limit: int
    direct_call_sites: int | None
    indirect_call_sites: int | None
    requested: int | None


class RecordPreflight(TypedDict):
    binary: str
    profiling_calls: list[str]
    startup_linked: bool
    static: bool
    units: int
    units_without_pg: list[RecordUnit]
    units_unknown: int
    producers_problem: str | None
    arcs: RecordArcs


class RecordHelper(TypedDict):
    used: bool
    path: str | None
    compiler: list[str]
    problem: str | None


class RecordRun(TypedDict):
    run: int
    pid: int
    exit_code: int | None
    signal: str | None
    status: int
    user_seconds: float
    system_seconds: float
    cpu_seconds: float
    wall_seconds: float
    glibc_messages: list[str]
    interrupted: str | None
    orphans_reaped: int
    orphans_left: bool


class RecordProfile(TypedDict):
    path: str
    pid: int
    run: int
    binary: str | None
    fit: str | None  # "exact" or "loose"
    found_by: str | None  # "process log", "command" or "named"
    samples: int
    arcs: int
    hz: int
    problem: str | None


class RecordTopRoutine(TypedDict):
    name: str
    self_seconds: float | None
    self_percent: float
    samples: float
    error_percent: float | None
    calls: int
    file: str | None
    line: int | None


class RecordBinary(TypedDict):
    binary: str
    profiles: list[str]
    pids: list[int]
    samples: float
    hz: int
    seconds: float | None
    calls: int
    top: list[RecordTopRoutine]
    warnings: list[str]
    problem: str | None
    report: list[str]


class RecordProcess(TypedDict):
    pid: int
    ppid: int
    programs: list[str]
    exited: bool
    signal: str | None
    cpu_seconds: float | None
    arcs_buffer: list[int] | None


class RecordHistory(TypedDict):
    run: int
    error_percent: float | None
    samples: float


class RecordPrecision(TypedDict):
    target_percent: float | None
    max_runs: int
    runs: int
    binary: str | None
    achieved_percent: float | None
    met: bool
    history: list[RecordHistory]


class RecordFinding(TypedDict):
    code: str
    severity: str  # "error", "warning" or "note"
    message: str
    fix: str
    rerun: list[str]  # record options that fix it by recording again


class Recording(TypedDict):
    """`gmonlens/record`'s answer: the recording (schema gmonlens-record/1)."""

    schema: str
    command: RecordCommand
    out_dir: str
    exit_status: int
    command_status: int
    usable: bool
    preflight: RecordPreflight | None
    helper: RecordHelper
    runs: list[RecordRun]
    cpu_seconds: float
    profiles: list[RecordProfile]
    left_alone: list[str]
    binaries: list[RecordBinary]
    processes: list[RecordProcess]
    precision: RecordPrecision
    diagnosis: list[RecordFinding]


def recording(document: Mapping[str, Any]) -> Recording:
    """The engine's document (`record_json.to_json`) as this type (built to be one: tests/protocol
    holds its example to it). `gmonlens/record`'s params are read by `gmonlens_ide.recorder`."""
    return cast(Recording, dict(document))
