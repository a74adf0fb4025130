"""textDocument/codeLens: one lens per routine with time or calls declared in the document, with
gprof's figures. Lenses are built once per (profile generation, file) and kept as plain JSON, on
the lines of the build; an open document edited since is answered with them moved through its
edits (`moved_lenses`)."""

from __future__ import annotations

import asyncio
import functools
import gc
import time
from typing import Any

from lsprotocol import types
from pygls.protocol import default_converter

from gmonlens_ide import baseline, budgets
from gmonlens_ide.linemap import LineMap
from gmonlens_ide.session import LoadedFolder

from .. import gcpause, reload, to_lsp, uris
from ..from_lsp import line_map, place_text
from ..server import GmonlensServer, safe


@functools.cache
def _own_converter() -> Any:
    """A converter for callers without a server (tests, benchmarks); the server passes its
    protocol's (building one registers every lsprotocol hook: 0.05-0.1 s of a start)."""
    return default_converter()  # type: ignore[no-untyped-call]


def has_figures(loaded: LoadedFolder, rid: int) -> bool:
    r = loaded.profile.routines[rid]
    if loaded.comparison is not None and rid in loaded.comparison.by_new:
        return True  # compared with the baseline (it may have lost all its time)
    return r.has_figures


CHANGED = " · changed since the build"  # a lens whose routine's body was edited (unsaved or not built)


def lenses_for(loaded: LoadedFolder, path: str, converter: Any = None) -> list[Any]:
    """The lenses of `path` as LSP JSON (cached on `loaded`), on the lines of the build; each
    routine's body (declaration to last instruction, 0-based lines) is kept beside them.
    `converter`: the server protocol's lsprotocol converter (a module one when None)."""
    cached: list[Any] | None = loaded.lens_cache.get(path)
    if cached is not None:
        return cached
    template = loaded.settings.lens_title
    items = [(rid, place) for rid, place in loaded.index.routines_in(path) if has_figures(loaded, rid)]
    lenses = [
        to_lsp.code_lens(
            loaded.profile,
            rid,
            place,
            place_text(place),
            template,
            loaded.generation,
            baseline.lens_suffix(loaded.comparison, rid),
        )
        for rid, place in items
    ]
    loaded.lens_cache[_ROUTINES + path] = [rid for rid, _place in items]  # for the budgets' marks
    ends = loaded.index.body_ends(items)
    loaded.lens_cache[_BODIES + path] = [
        (place.line - 1, ends.get(rid, place.line) - 1) for rid, place in items
    ]
    result: list[Any] = (converter or _own_converter()).unstructure(lenses, list[types.CodeLens])
    loaded.lens_cache[path] = result
    gc.freeze()  # the decoded DWARF and these lenses live long: keep them out of GC passes
    return result


_BODIES = "\0bodies:"  # lens_cache key prefix: the routines' bodies beside a file's lenses
_ROUTINES = "\0routines:"  # lens_cache key prefix: the routine id of each of a file's lenses


def budget_marks(loaded: LoadedFolder, path: str, lenses: list[Any]) -> list[Any]:
    """`lenses` (JSON) with " · over budget" on the routines that fail a budget, marked when
    answered rather than kept: the budgets change with their file, not with the load
    (`gmonlens_ide.budgets`; the budgets at hand, never waited for)."""
    value = loaded.budgets.ready()
    if value is None or not value.routines or not lenses:
        return lenses
    rids = loaded.lens_cache.get(_ROUTINES + path) or []
    out = []
    for lens, rid in zip(lenses, rids, strict=False):
        suffix = budgets.lens_suffix(loaded, rid)
        out.append(
            {**lens, "command": {**lens["command"], "title": lens["command"]["title"] + suffix}}
            if suffix
            else lens
        )
    return out


def moved_lenses(lenses: list[Any], bodies: list[tuple[int, int]], moved: LineMap) -> list[Any]:
    """`lenses` (JSON, on the build's lines) where unsaved edits moved their routines; a routine
    whose declaration or body was edited keeps its lens where its text now begins, marked
    `CHANGED`."""
    out = []
    for lens, (first, last) in zip(lenses, bodies, strict=True):
        line = moved.near(first)
        rng = lens["range"]
        command = dict(lens["command"])
        if not moved.unchanged(first, last):
            command["title"] += CHANGED
        args = command.get("arguments")
        if isinstance(args, list) and len(args) > 1 and isinstance(args[1], dict):
            command["arguments"] = [args[0], {**args[1], "line": line}, *args[2:]]
        out.append(
            {
                **lens,
                "range": {"start": {**rng["start"], "line": line}, "end": {**rng["end"], "line": line}},
                "command": command,
            }
        )
    return out


def register(server: GmonlensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    @safe()
    async def code_lens(ls: GmonlensServer, params: types.CodeLensParams) -> list[Any] | None:
        state = ls.folder_of(params.text_document.uri)
        path = uris.to_fs_path(params.text_document.uri)
        if state is None or not path:
            return None
        # a lens request counts as lens work from its arrival, while it waits for the load too:
        # the whole-program steps after a load (`GmonlensServer.quiet`) wait for its answer
        ls.lens_jobs += 1
        try:
            loaded = await reload.loaded_or_wait(ls, state)
            if loaded is None:
                return None
            cached = loaded.lens_cache.get(path)
            if cached is None:
                converter = getattr(ls.protocol, "_converter", None)
                cached = await asyncio.to_thread(gcpause.run_paused, lenses_for, loaded, path, converter)
            cached = budget_marks(loaded, path, cached or [])
            moved = line_map(ls, params.text_document.uri, loaded)
            if moved is not None and cached:  # unsaved edits since the build moved the lines
                return moved_lenses(cached, loaded.lens_cache[_BODIES + path], moved)
            return cached or None
        finally:
            ls.lens_jobs -= 1
            ls.lens_done = time.monotonic()
