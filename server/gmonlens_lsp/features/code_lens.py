"""textDocument/codeLens: one lens per routine with time or calls declared in the document, with
gprof's figures. Lenses are built once per (profile generation, file) and kept as plain JSON."""

from __future__ import annotations

import asyncio
import functools
import gc
import time
from typing import Any

from lsprotocol import types
from pygls.protocol import default_converter

from gmonlens_ide import baseline
from gmonlens_ide.session import LoadedFolder

from .. import gcpause, reload, to_lsp, uris
from ..from_lsp import place_text
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


def lenses_for(loaded: LoadedFolder, path: str, converter: Any = None) -> list[Any]:
    """The lenses of `path` as LSP JSON (cached on `loaded`); `converter`: the server protocol's
    lsprotocol converter (a module one when None)."""
    cached: list[Any] | None = loaded.lens_cache.get(path)
    if cached is not None:
        return cached
    template = loaded.settings.lens_title
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
        for rid, place in loaded.index.routines_in(path)
        if has_figures(loaded, rid)
    ]
    result: list[Any] = (converter or _own_converter()).unstructure(lenses, list[types.CodeLens])
    loaded.lens_cache[path] = result
    gc.freeze()  # the decoded DWARF and these lenses live long: keep them out of GC passes
    return result


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
            return cached or None
        finally:
            ls.lens_jobs -= 1
            ls.lens_done = time.monotonic()
