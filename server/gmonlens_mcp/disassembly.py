"""`disassembly`: the `gmonlens disasm` listing of a routine, when this build has it.

The listing comes from the engine's `gmonlens.disasm.session` / `gmonlens.disasm.render` (the
`gmonlens disasm` command's modules): JSON `gmonlens-disasm/1` as structured content, the text
listing (objdump's spelling, samples and seconds per instruction, source lines, calls with gprof's
counts) as text. Without capstone (the platform-neutral `.vsix` does not bundle it), the tool
answers a tool error saying so. The listing's files are read once per load
(`DisasmContext`, kept with the view). At most `limit` instructions are given: the hottest ones,
in address order.
"""

from __future__ import annotations

from typing import Any

from gmonlens.common.errors import GmonlensError
from gmonlens.common.options import AnalysisOptions
from gmonlens.disasm.render import render_text, to_json
from gmonlens.disasm.session import DisasmContext

from .lookup import find
from .rpc import ToolResult
from .workspace import ToolFailure, View

MAX_TEXT_LINES = 400


def _context(view: View) -> DisasmContext:
    ctx = view.derived.get("disasm")
    if ctx is None:
        options = AnalysisOptions(static_call_graph=view.loaded.settings.static_call_graph)
        ctx = DisasmContext.open(view.loaded.binary, list(view.loaded.profiles), options)
        view.derived["disasm"] = ctx
    assert isinstance(ctx, DisasmContext)
    return ctx


def disassembly(view: View, args: dict[str, Any]) -> ToolResult:
    rid = find(view, args["routine"], args.get("file"))
    r = view.profile.routines[rid]
    try:
        ctx = _context(view)
        same = [x.id for x in ctx.profile.routines if x.address == r.address and x.name == r.name]
        if not same:
            raise ToolFailure(f"{r.display_name}: not in the listing's symbol table")
        listing = ctx.listing(same[0])
        display = ctx.display_names([listing])
        doc = to_json(listing, display, ctx.target_names, "att")
        text = render_text(listing, display, ctx.target_names)
    except GmonlensError as exc:  # no capstone, an architecture without a decoder, no code
        raise ToolFailure(f"no disassembly of {r.display_name}: {exc}", {"routine": r.display_name}) from None
    limit = args["limit"]
    insns = doc.get("instructions", [])
    if len(insns) > limit:
        hottest = sorted(range(len(insns)), key=lambda i: (-(insns[i].get("samples") or 0), i))[:limit]
        doc["instructions"] = [insns[i] for i in sorted(hottest)]
    doc["more_instructions"] = max(len(insns) - limit, 0)
    lines = text.splitlines()
    if len(lines) > MAX_TEXT_LINES:
        text = "\n".join(lines[:MAX_TEXT_LINES]) + f"\n... ({len(lines) - MAX_TEXT_LINES} more lines)"
    return ToolResult(doc, text)
