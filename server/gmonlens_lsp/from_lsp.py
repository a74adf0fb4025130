"""From LSP: the one reader of what requests name. A folder (`folder_for`: a folder's URI or a
document in it) and the cursor (`cursor_at`: the folder, its load, the file and the identifier at an
LSP position, resolved once per request; the open text, else the file on disk read off the event
loop; the line mapped back through unsaved edits to the build's, `line_map`). Positions are LSP's (0-based lines, UTF-16 columns); the index takes 1-based lines.

Also what `to_lsp` is given, since it reads nothing itself: the text of a declaration's line
(`place_text`), routines' places (`places_of`: the index may decode DWARF) and the call-site lines
in a file (`lines_in`). These read files: call them off the event loop."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import unquote

from lsprotocol import types

from gmonlens_ide.index import Place, link_budget
from gmonlens_ide.linemap import LineMap
from gmonlens_ide.session import FolderState, LoadedFolder
from gmonlens_ide.sourcetext import LineLocator, file_lines, index_of_utf16, lsp_lines

from . import to_lsp, uris
from .server import GmonlensServer
from .textsync import SplicingTextDocument

# the part of the word before the cursor may be empty: the cursor can sit on its first character
WORD = re.compile(r"(?:[A-Za-z_~][A-Za-z0-9_]*)?$")
WORD_END = re.compile(r"^[A-Za-z0-9_]*")
WORD_AT_TILDE = re.compile(r"^~[A-Za-z_][A-Za-z0-9_]*")  # a destructor's name, the cursor on its `~`


class _PlainLines:
    """The lines of a document pygls holds as one string (a workspace `textsync` was not
    installed on)."""

    def __init__(self, text: str) -> None:
        self._locator = LineLocator(text)

    def line(self, i: int) -> str:
        return self._locator.line(i)

    def line_count(self) -> int:
        return len(lsp_lines(self._locator.text))


def open_doc(ls: GmonlensServer, uri: str) -> SplicingTextDocument | _PlainLines | None:
    """The document `uri` when the client has it open (its lines; never read from disk here)."""
    doc = ls.workspace.text_documents.get(unquote(uri))  # pygls's key
    if isinstance(doc, SplicingTextDocument) or doc is None:
        return doc
    source = getattr(doc, "_source", None)
    return _PlainLines(source) if isinstance(source, str) else None


def line_map(ls: GmonlensServer, uri: str, loaded: LoadedFolder) -> LineMap | None:
    """How the open document's lines moved since the text `loaded`'s binary was built from
    (`linemap.EditLog.since`); None when it is not open or not edited since."""
    doc = open_doc(ls, uri)
    if not isinstance(doc, SplicingTextDocument):
        return None
    built = loaded.read_as.binary[3] if loaded.read_as is not None and loaded.read_as.binary else None
    return doc.edits.since(built)


def word_in(lines: Sequence[str], position: types.Position) -> str | None:
    """The identifier at `position` (UTF-16 column) of `lines` (LSP lines)."""
    if not 0 <= position.line < len(lines):
        return None
    line = lines[position.line]
    i = index_of_utf16(line, position.character)
    start = WORD.search(line[:i])
    before = start.group() if start else ""
    end = (None if before else WORD_AT_TILDE.match(line[i:])) or WORD_END.match(line[i:])
    word = before + (end.group() if end else "")
    return word or None


async def word_at(ls: GmonlensServer, uri: str, position: types.Position) -> str | None:
    """The identifier under the cursor (open document text, else the file on disk, read off the
    event loop with the regular-file checks)."""
    doc = open_doc(ls, uri)
    if doc is not None:  # one line of it, not a split of the whole text (40 ms on a 9 MB file)
        if not 0 <= position.line < doc.line_count():
            return None
        return word_in([doc.line(position.line)], to_lsp.position(0, position.character))
    path = uris.to_fs_path(uri)
    if not path:
        return None
    return word_in(await asyncio.to_thread(file_lines, path), position)


def folder_for(ls: GmonlensServer, uri: str) -> FolderState | None:
    """The folder a request's `uri` names: a workspace folder's own URI, else the innermost folder
    holding the document."""
    return ls.folders.get(uri) or ls.folder_of(uri)


@dataclass(frozen=True)
class Cursor:
    """What a request at a position refers to, resolved once per request: the folder and its load,
    the file, the 1-based line and the identifier there."""

    state: FolderState
    loaded: LoadedFolder
    path: str
    line: int
    word: str

    def routines(self) -> list[int]:
        """Every routine named by the identifier on this line, hottest first (several: a
        template's instances); reads DWARF: call off the event loop."""
        return self.loaded.index.routines_at(self.path, self.line, self.word)

    def routine(self) -> int | None:
        """The routine the identifier names here (reads DWARF: call off the event loop)."""
        return self.loaded.index.routine_at(self.path, self.line, self.word)


async def cursor_at(ls: GmonlensServer, uri: str, position: types.Position) -> Cursor | None:
    """The loaded folder, file and identifier at `position` of `uri`, when all exist."""
    state = ls.folder_of(uri)
    loaded = state.loaded if state is not None else None
    path = uris.to_fs_path(uri)
    if state is None or loaded is None or not path:
        return None
    word = await word_at(ls, uri, position)
    moved = line_map(ls, uri, loaded)
    line = position.line if moved is None else moved.base(position.line)
    if line is None:  # a line written since the build: as it stands
        line = position.line
    return Cursor(state, loaded, path, line + 1, word) if word else None


async def routine_under_cursor(
    ls: GmonlensServer, uri: str, position: types.Position
) -> tuple[LoadedFolder, int] | None:
    at = await cursor_at(ls, uri, position)
    rid = await asyncio.to_thread(at.routine) if at is not None else None
    return None if at is None or rid is None else (at.loaded, rid)


async def routines_under_cursor(
    ls: GmonlensServer, uri: str, position: types.Position
) -> tuple[LoadedFolder, list[int]] | None:
    """Every routine named under the cursor: several when the line declares several of that name
    (a template's instances, one lens each), hottest first; else `routine_under_cursor`'s."""
    at = await cursor_at(ls, uri, position)
    rids = await asyncio.to_thread(at.routines) if at is not None else []
    return (at.loaded, rids) if at is not None and rids else None


# ---- what render is given --------------------------------------------------------------------


def place_text(place: Place | None) -> str:
    """The text of the declaration line of `place` in the file on disk (LSP lines); "" when the
    place is unknown, not resolved to a file here, or the line is not there."""
    if place is None or not place.resolved:
        return ""
    lines = file_lines(place.path)
    return lines[place.line - 1] if 0 < place.line <= len(lines) else ""


def places_of(loaded: LoadedFolder, rids: Iterable[int]) -> dict[int, Place | None]:
    """Routine id -> its declaration (None when the index has none)."""
    return {rid: loaded.index.place(rid) for rid in rids}


def link_places_of(loaded: LoadedFolder, rids: Iterable[int]) -> dict[int, Place | None]:
    """Routine id -> where a link to it points (`SourceIndex.link_place`: at most
    LINK_DECODE_BYTES of DWARF decoded for all of them, within the request)."""
    budget = link_budget()
    return {rid: loaded.index.link_place(rid, budget) for rid in rids}


def lines_in(sites: Sequence[tuple[str, int]], path: str) -> list[int]:
    """The 1-based lines of the call `sites` (file, line) that lie in the file `path` (links
    resolved)."""
    key = os.path.realpath(path)
    return [line for site, line in sites if os.path.realpath(site) == key]
