"""`gmonlens disasm --json` checked against gprof's own output (used by the integration and the
real-program tests): for every routine with self time,
- its instructions' seconds add up to gprof's flat-profile self seconds (as printed, %.2f);
- its instructions grouped into gprof -l's line symbols (runs of equal file, line and function)
  add up to `gprof -l -p`'s entries of that routine (as printed), and no group with time is
  missing from gprof's list;
- its call instructions' counts, callee by callee, are gprof's call-graph arcs from it.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# "%  cum  self  [calls self/call total/call]  name [(file:line @ addr)]"
FLAT = re.compile(
    r"^\s*(\d+\.\d+)\s+\d+\.\d+\s+(\d+\.\d+)\s+(?:\d+\s+\S+\s+\S+\s+)?(.*?)(?: \((\S+):(\d+) @ ([0-9a-f]+)\))?$"
)
# a call-graph child line: [self children] called[/total] name [index]
CHILD = re.compile(r"^\s+(?:\d+\.\d+\s+\d+\.\d+\s+)?(\d+)(?:/\d+)?\s+(.*?) \[(\d+)\]$")
PRIMARY = re.compile(r"^\[(\d+)\]\s")


@dataclass(frozen=True)
class FlatRow:
    seconds: str
    name: str
    address: int | None


def flat_rows(text: str) -> list[FlatRow]:
    """The entries of gprof's flat profile (with -l, line symbols carry their address)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(" time "))
    out = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        m = FLAT.match(line)
        assert m, line
        out.append(FlatRow(m[2], m[3], int(m[6], 16) if m[6] else None))
    return out


def _strip_cycle(name: str) -> str:
    return re.sub(r" <cycle \d+>$", "", name)


def graph_arcs(text: str) -> dict[str, list[dict[str, int]]]:
    """caller -> callee -> count from gprof's call graph (`-q`), one dict per entry of the caller's
    name (two files' `static` routines, a C++ destructor's D0/D1 symbols, share a name): the lines
    below each primary line, and for a caller gprof gives no entry of its own (never called and
    never sampled: a static initializer, a routine run through pthread_once) the lines naming it
    above its callees'."""
    children: dict[str, list[dict[str, int]]] = {}
    parents: dict[str, dict[str, int]] = {}
    current: dict[str, int] | None = None
    above: list[tuple[str, int]] = []
    in_graph = False
    for line in text.splitlines():
        if line.startswith("index % time"):
            in_graph = True
            continue
        if not in_graph:
            continue
        if line.startswith("Index by function name"):
            break
        if line.startswith("-----"):
            current, above = None, []
            continue
        if PRIMARY.match(line):
            m = re.match(r"^\[\d+\]\s+\S+\s+\S+\s+\S+\s+(?:[\d+]+\s+)?(.*?) \[\d+\]$", line)
            assert m, line
            name = _strip_cycle(m[1])
            current = {}
            children.setdefault(name, []).append(current)
            for caller, count in above:
                parents.setdefault(caller, {})[name] = parents.get(caller, {}).get(name, 0) + count
            continue
        m = CHILD.match(line)
        if not m or m[2].endswith("as a whole>") or m[2] == "<spontaneous>":
            continue
        if current is not None:
            callee = _strip_cycle(m[2])
            current[callee] = current.get(callee, 0) + int(m[1])
        else:
            above.append((_strip_cycle(m[2]), int(m[1])))
    return {**{k: [v] for k, v in parents.items() if k not in children}, **children}


def run_json(gmonlens: str, args: Sequence[str], env: dict[str, str] | None = None) -> Any:
    proc = subprocess.run([gmonlens, "disasm", "--json", *args], capture_output=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return json.loads(proc.stdout)


def listings(binary: str, profiles: Sequence[str]) -> list[dict[str, Any]]:
    """`gmonlens disasm --json` of every routine with self time or calls, computed in-process."""
    from gmonlens.common.options import AnalysisOptions
    from gmonlens.disasm.render import to_json
    from gmonlens.disasm.session import DisasmContext

    ctx = DisasmContext.open(binary, profiles, AnalysisOptions())
    out = []
    for r in ctx.profile.routines:
        if (r.self_ticks > 0 or ctx.profile.children[r.id]) and not r.is_line:
            x = ctx.listing(r.id)
            out.append(to_json(x, ctx.display_names([x]), ctx.target_names, "att"))
    return out


def check_program(
    binary: str, profiles: Sequence[str], flat: str, lines: str | None, graph: str
) -> tuple[int, list[str]]:
    """(routines checked, problems) of every listing with self time or calls against gprof's texts:
    `flat` of `gprof -b -p`, `lines` of `gprof -b -l -p` (None: not checked), `graph` of `-b -q`."""
    rows = flat_rows(flat)
    self_of: dict[str, list[str]] = {}
    for r in rows:
        self_of.setdefault(r.name, []).append(r.seconds)
    line_rows = flat_rows(lines) if lines is not None else None
    arcs = graph_arcs(graph)
    docs = listings(binary, profiles)
    routines_named: dict[str, int] = {}
    for doc in docs:
        routines_named[doc["routine"]] = routines_named.get(doc["routine"], 0) + 1
    problems: list[str] = []
    mine: dict[str, list[str]] = {}
    for doc in docs:
        name = doc["routine"]
        mine.setdefault(name, []).append("%.2f" % sum(i["seconds"] for i in doc["instructions"]))
        # a routine is told apart by its name only where no other routine (listed, in gprof's flat
        # profile or call graph) has it: which one got a run's samples is chance
        entries = arcs.get(name, [{}])
        if routines_named[name] == 1 and len(self_of.get(name, ())) <= 1 and len(entries) == 1:
            problems += check_listing(doc, self_of.get(name, ["0.00"])[0], line_rows, entries[0])
        else:  # a shared name: seconds compared as a multiset below, arcs not told apart
            problems += check_listing(doc, mine[name][-1], line_rows, None)
    for name, got in mine.items():
        want = sorted(x for x in self_of.get(name, []) if x != "0.00")
        if sorted(x for x in got if x != "0.00") != want:
            problems.append(f"{name}: listings {sorted(got)} s, gprof {want}")
    return len(docs), problems


def line_groups(doc: dict[str, Any]) -> list[tuple[int, float]]:
    """(start address, seconds) of each run of equal (file, line, function) of a listing."""
    out: list[tuple[int, float]] = []
    prev = None
    for i in doc["instructions"]:
        key = (i["file"], i["line"], i["function"])
        if key != prev or not out:
            out.append((i["address"], 0.0))
            prev = key
        out[-1] = (out[-1][0], out[-1][1] + i["seconds"])
    return out


def same_print(seconds: float, printed: str) -> bool:
    """Whether `seconds` prints as gprof's `printed` (%.2f); a sum sitting on a rounding edge
    (x.xx5, e.g. 1.5 samples of 0.01 s) may round either way after float summation."""
    if "%.2f" % seconds == printed:
        return True
    edge = abs((seconds * 100) % 1 - 0.5) < 1e-6
    return edge and abs(seconds - float(printed)) <= 0.005 + 1e-9


def check_listing(
    doc: dict[str, Any], flat_self: str, line_rows: Sequence[FlatRow] | None, arcs: dict[str, int] | None
) -> list[str]:
    """Problems of one listing against gprof's figures for its routine (empty: all agree)."""
    problems = []
    total = sum(i["seconds"] for i in doc["instructions"])
    if not same_print(total, flat_self):
        problems.append(f"{doc['routine']}: instructions {total:.4f} s, gprof {flat_self}")
    if line_rows is not None:
        groups = dict(line_groups(doc))
        lo, hi = doc["address"], doc["end"]
        seen = set()
        for row in line_rows:
            a = row.address
            if a is None and row.name == doc["routine"]:  # printed bare: no line information
                a = lo
            if a is None or not lo <= a < hi:
                continue
            seen.add(a)
            got = groups.get(a)
            if got is None:
                if float(row.seconds) > 0:
                    problems.append(
                        f"{doc['routine']}: gprof -l has {row.name} @ {a:x}, the listing no run there"
                    )
                continue
            if not same_print(got, row.seconds):
                problems.append(f"{doc['routine']}: line run @ {a:x}: {got:.4f} s, gprof -l {row.seconds}")
        for a, s in groups.items():
            if a not in seen and not same_print(s, "0.00"):
                problems.append(f"{doc['routine']}: line run @ {a:x} with {s:.4f} s, not in gprof -l")
    if arcs is not None:
        calls: dict[str, int] = {}
        for i in doc["instructions"]:
            for c in i["calls"]:
                calls[c["callee"]] = calls.get(c["callee"], 0) + c["count"]
        if calls != arcs:
            problems.append(f"{doc['routine']}: calls {sorted(calls.items())}, gprof {sorted(arcs.items())}")
    return problems
