"""`disassembly`: the `gmonlens disasm` listing of a routine's hot region.

The listing is the engine's (`gmonlens.disasm.listing`, built through the load's
`gmonlens_ide.listing_context`: the files the load read, BFD's line table and gprof -l's names
from the disk cache): per instruction its samples, seconds and share of the routine, its source
line, calls with gprof's counts and estimated time.

At most `limit` instructions are given, in the text and the structured data alike: all of them
when the routine has no more; else its hot region: the instructions with the most samples (then
those whose calls carry the most propagated time), each with up to `CONTEXT` instructions around
it, grown evenly while the limit allows; without samples or calls, the routine's first
instructions. What is left out is said: `truncated`, `omitted` (instructions, samples, seconds,
and each omitted range), and a line in the text at each gap. Source files are the workspace's
(the index's resolve: a build path is mapped to the file here) and the source lines shown are
read from them, as `hot_lines` shows them. Without capstone (the platform-neutral `.vsix` does
not bundle it) the tool answers a tool error saying so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gmonlens.common.errors import GmonlensError
from gmonlens.disasm.listing import Instruction, Listing
from gmonlens.disasm.render import Display, Row, full_text, render_lines
from gmonlens_ide.listing_context import context, source_text

from .lookup import find, ref
from .rpc import ToolResult
from .workspace import ToolFailure, View

CONTEXT = 3  # instructions shown before and after each hot one
DEFAULT_LIMIT = 40
SYNTAX = "att"


def _heat(i: Instruction) -> tuple[float, float]:
    return i.ticks, sum(c.ticks for c in i.calls)


def hot_region(insns: Sequence[Instruction], limit: int) -> list[int]:
    """The indexes of the instructions to show, in address order (module contract)."""
    n = len(insns)
    if n <= limit:
        return list(range(n))
    heat = [_heat(i) for i in insns]
    hot = sorted((k for k in range(n) if heat[k] != (0, 0)), key=lambda k: (-heat[k][0], -heat[k][1], k))
    chosen: set[int] = set()
    for k in hot:
        near = sorted(range(max(0, k - CONTEXT), min(n, k + CONTEXT + 1)), key=lambda j: (abs(j - k), j))
        for j in near:
            if len(chosen) >= limit:
                break
            chosen.add(j)
        if len(chosen) >= limit:
            break
    if not chosen:
        return list(range(limit))
    while len(chosen) < limit:  # room left: the shown blocks grow by one at each end
        edges = sorted({j for k in chosen for j in (k - 1, k + 1) if 0 <= j < n and j not in chosen})
        if not edges:
            break
        chosen.update(edges[: limit - len(chosen)])
    return sorted(chosen)


def _gaps(insns: Sequence[Instruction], keep: list[int]) -> list[tuple[int, int]]:
    """The omitted runs of instruction indexes, as [start, end) pairs."""
    out, at = [], 0
    for k in [*keep, len(insns)]:
        if k > at:
            out.append((at, k))
        at = k + 1
    return out


def _gap_line(listing: Listing, start: int, end: int) -> str:
    ticks = sum(i.ticks for i in listing.instructions[start:end])
    seconds = listing.seconds(ticks)
    count = "%d" % ticks if ticks == int(ticks) else "%.1f" % ticks
    figures = f"{count} samples" + (f", {seconds:.2f} s" if seconds is not None and ticks else "")
    n = end - start
    return f"{' ' * 39}... {n} instruction{'s' if n != 1 else ''} omitted ({figures})"


def listing_text(
    listing: Listing,
    rows: list[tuple[str, Row]],
    keep: list[int],
    source: Callable[[str, int], str | None],
    where: str | None,
) -> str:
    """The listing's text (`render_lines`) with only the instructions `keep` and the lines that go
    with them (source, label, inlined function); a line at each gap says what it leaves out, and
    the instruction after it gets its source line. `where`: the routine's file as the workspace
    has it, for the heading (the listing's is the path the build recorded)."""
    insns = listing.instructions
    if insns and insns[0].file and where:
        r, end = listing.routine, insns[-1].address + insns[-1].size
        rows = [
            (f"{r.display_name} ({where}:{insns[0].line})  0x{r.address:x}..0x{end:x}", rows[0][1]),
            *rows[1:],
        ]
    groups: dict[int, list[tuple[str, Row]]] = {}
    pending: list[tuple[str, Row]] = []
    for text, row in rows:
        kind, k = row[0], row[1]
        if kind == "header":
            continue
        if k < 0:  # a source line: it belongs to the instruction after it
            pending.append((text, row))
            continue
        groups.setdefault(k, []).extend(pending)
        groups[k].append((text, row))
        pending = []
    out = [text for text, row in rows if row[0] == "header"]
    if len(keep) < len(insns):
        out.insert(
            len(out) - 1,
            f"showing {len(keep)} of {len(insns)} instructions: the hottest and those around them",
        )
    prev = -1
    for k in keep:
        group = groups.get(k, [])
        if k > prev + 1:
            out.append(_gap_line(listing, prev + 1, k))
            i = insns[k]
            if i.file is not None and not any(row[0] == "source" for _t, row in group):
                line = source(i.file, i.line)
                loc = f"{' ' * 39}{i.file.rsplit('/', 1)[-1]}:{i.line}"
                out.append(loc + (f"  {line.strip()}" if line and line.strip() else ""))
        out += [text for text, _row in group]
        prev = k
    if prev < len(insns) - 1:
        out.append(_gap_line(listing, prev + 1, len(insns)))
    return "\n".join(out) + "\n"


def _instruction(
    view: View,
    listing: Listing,
    i: Instruction,
    display: Display,
    names: Callable[[int], str | None],
    own: str,
) -> dict[str, Any]:
    sec = listing.seconds
    whole = sum(x.ticks for x in listing.instructions)
    out: dict[str, Any] = {
        "address": i.address,
        "text": full_text(i, names),
        "samples": i.ticks,
        "seconds": sec(i.ticks),
        "percent": 100.0 * i.ticks / whole if whole > 0 else 0.0,
        "file": _path(view, i.file),
        "line": i.line or None,
    }
    if i.function and i.function != own:
        out["function"] = display(i.function)
    if i.label:
        out["label"] = i.label
    if i.target is not None:
        out["target"] = i.target
    if i.calls:
        out["calls"] = [
            {"callee": c.name, "count": c.count, "seconds": sec(c.ticks), "estimate": True, "shared": c.shared,
             "exact": c.exact}
            for c in i.calls
        ]  # fmt: skip
    return out


def _path(view: View, recorded: str | None) -> str | None:
    """A recorded (DWARF) path as the workspace has it (relative when inside)."""
    if not recorded:
        return None
    return view.rel(view.loaded.index.resolve(recorded) or recorded)


def _omitted(listing: Listing, keep: list[int]) -> dict[str, Any]:
    insns = listing.instructions
    ranges = [
        {"from": insns[a].address, "to": insns[b - 1].address + insns[b - 1].size, "instructions": b - a,
         "samples": sum(i.ticks for i in insns[a:b])}
        for a, b in _gaps(insns, keep)
    ]  # fmt: skip
    ticks = sum(x["samples"] for x in ranges)
    return {
        "instructions": len(insns) - len(keep),
        "samples": ticks,
        "seconds": listing.seconds(ticks),
        "ranges": ranges,
    }


def _document(
    view: View,
    rid: int,
    listing: Listing,
    display: Display,
    names: Callable[[int], str | None],
    keep: list[int],
) -> dict[str, Any]:
    r = listing.routine
    insns = listing.instructions
    own = insns[0].function if insns else ""
    source = source_text(view.loaded)
    shown = [insns[k] for k in keep]
    places = dict.fromkeys((i.file, i.line) for i in shown if i.file and i.line)
    ticks = sum(i.ticks for i in insns)
    return {
        "routine": r.display_name,
        "ref": ref(view, rid),
        "symbol": r.name,
        "address": r.address,
        "end": insns[-1].address + insns[-1].size if insns else r.address,
        "file": _path(view, insns[0].file) if insns else None,
        "line": (insns[0].line or None) if insns else None,
        "self_seconds": listing.seconds(ticks),
        "samples": ticks,
        "percent": 100.0 * ticks / listing.total_ticks if listing.total_ticks > 0 else 0.0,
        "total_seconds": listing.seconds(listing.total_ticks),
        "machine": listing.machine,
        "syntax": SYNTAX,
        "instructions_total": len(insns),
        "instructions": [_instruction(view, listing, i, display, names, own) for i in shown],
        "sources": [
            {"file": _path(view, f), "line": n, "source": _stripped(source(f, n))} for f, n in places if f
        ],
        "truncated": len(keep) < len(insns),
        "omitted": _omitted(listing, keep),
        "symbols": [{"address": a, "name": display(n)} for a, n in listing.symbols],
    }


def _stripped(text: str | None) -> str | None:
    return text.strip()[:200] if text is not None else None


def disassembly(view: View, args: dict[str, Any]) -> ToolResult:
    rid = find(view, args["routine"], args.get("file"))
    r = view.profile.routines[rid]
    try:
        ctx = context(view.loaded, SYNTAX)
        listing = ctx.listing(rid)
        display = ctx.display_names([listing])
        source = source_text(view.loaded)
        rows = render_lines(listing, display, ctx.target_names, source)
    except GmonlensError as exc:  # no capstone, an architecture without a decoder, no code
        raise ToolFailure(f"no disassembly of {r.display_name}: {exc}", {"routine": r.display_name}) from None
    keep = hot_region(listing.instructions, args["limit"])
    doc = _document(view, rid, listing, display, ctx.target_names, keep)
    return ToolResult(doc, listing_text(listing, rows, keep, source, doc["file"]))
