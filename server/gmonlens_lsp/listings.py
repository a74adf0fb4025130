"""Listings of routines as read-only documents (no LSP types): the `gmonlens-disasm:` URIs that
name them, the engine's listing (`gmonlens.disasm.listing`) for a loaded folder, and the document's text
with what each line shows (for heat, inlay hints, links and cursor sync in a client).

A URI is `gmonlens-disasm:/<printed name>.s?folder=<folder URI>&routine=<raw name>&address=<hex>
&syntax=att|intel[&layout=compact]` (query values percent-encoded): the raw name and address pick the routine in
any generation of the folder's profile, so the document follows reloads of the same program.
"""

from __future__ import annotations

from urllib.parse import parse_qs, quote, unquote, urlsplit

from gmonlens.common.model import Routine
from gmonlens.disasm.render import render_lines
from gmonlens_ide.listing_context import context as context
from gmonlens_ide.listing_context import source_text
from gmonlens_ide.session import LoadedFolder

from . import wire

SCHEME = "gmonlens-disasm"


def doc_uri(folder: str, r: Routine, syntax: str = "att", compact: bool = False) -> str:
    """The listing document's URI for routine `r` of `folder` (module docstring)."""
    name = quote(r.display_name.replace("/", "_"), safe="")
    query = f"folder={quote(folder, safe='')}&routine={quote(r.name, safe='')}&address={r.address:x}"
    return f"{SCHEME}:/{name}.s?{query}&syntax={syntax}" + ("&layout=compact" if compact else "")


def parse_uri(uri: str) -> tuple[str, str, int | None, str, bool] | None:
    """(folder URI, raw name, address or None, syntax, compact) of a listing URI; None if not one."""
    parts = urlsplit(uri)
    if parts.scheme != SCHEME:
        return None
    query = parts.query if "=" in parts.query else unquote(parts.query)  # VS Code encodes `=` and `&`
    q = parse_qs(query)
    folder, routine = q.get("folder", [""])[0], q.get("routine", [""])[0]
    if not folder or not routine:
        return None
    try:
        address = int(q["address"][0], 16) if "address" in q else None
    except ValueError:
        address = None
    syntax = q.get("syntax", ["att"])[0]
    compact = q.get("layout", [""])[0] == "compact"
    return folder, routine, address, syntax if syntax in ("att", "intel") else "att", compact


def find(loaded: LoadedFolder, name: str, address: int | None) -> int | None:
    """The routine of that raw (or printed) name, at `address` when several share it."""
    hits = [r for r in loaded.profile.routines if name in (r.name, r.display_name) and not r.is_line]
    exact = [r for r in hits if r.address == address]
    chosen = exact or hits
    return chosen[0].id if chosen else None


def document(
    loaded: LoadedFolder, folder: str, rid: int, syntax: str = "att", compact: bool = False
) -> wire.Disassembly:
    """The listing of routine `rid` as a document: its URI and text, and per instruction the
    0-based text line, figures, source (recorded file, 1-based line; resolved path when found)
    and calls (callee, count, estimated seconds, callee's source); `sources` gives the text lines
    that show a source line (PROTOCOL.md, `gmonlens/disassembly`)."""
    ctx = context(loaded, syntax)
    listing = ctx.listing(rid)
    display = ctx.display_names([listing])
    index = loaded.index
    rows = render_lines(listing, display, ctx.target_names, source_text(loaded), compact=compact)
    sec = listing.seconds
    whole = sum(i.ticks for i in listing.instructions)
    r = listing.routine
    insns: list[wire.DisasmInstruction] = []
    sources: list[wire.DisasmSource] = []
    for n, (_text, (kind, k, file, line)) in enumerate(rows):
        if kind == "source" and file is not None:
            sources.append({"line": n, "file": file, "path": index.resolve(file), "sourceLine": line})
        if kind != "instruction":
            continue
        i = listing.instructions[k]
        insns.append(
            {
                "line": n,
                "address": i.address,
                "samples": i.ticks,
                "seconds": _s(sec(i.ticks)),
                "percent": round(100.0 * i.ticks / whole, 4) if whole > 0 else 0.0,
                "file": i.file,
                "path": index.resolve(i.file) if i.file else None,
                "sourceLine": i.line,
                "calls": [_call(loaded, c.callee, c.name, c.count, sec(c.ticks)) for c in i.calls],
            }
        )
    return {
        "uri": doc_uri(folder, r, syntax, compact),
        "folder": folder,
        "generation": loaded.generation,
        "routine": r.id,
        "name": r.name,
        "displayName": r.display_name,
        "selfSeconds": _s(sec(whole)),
        "totalSeconds": _s(sec(listing.total_ticks)),
        "text": "\n".join(text for text, _row in rows) + "\n",
        "instructions": insns,
        "sources": sources,
    }


def _s(seconds: float | None) -> float | None:
    """Seconds rounded to the microsecond; None without a sampling rate."""
    return None if seconds is None else round(seconds, 6)


def _call(loaded: LoadedFolder, callee: int, name: str, count: int, seconds: float | None) -> wire.DisasmCall:
    place = loaded.index.place(callee)
    found = place is not None and place.resolved
    return {
        "callee": name,
        "count": count,
        "seconds": _s(seconds),
        "path": place.path if found and place else None,
        "sourceLine": place.line if found and place else None,
    }
