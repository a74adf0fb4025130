"""Incremental text sync that stays cheap on large documents.

pygls applies each `textDocument/didChange` edit by splitting the whole text into lines and
writing every line out again: 80-180 ms per keystroke on SQLite's 9 MB sqlite3.c, on the event
loop, so every request after an edit waited for it. Here an edit is two offsets found with a
`LineLocator` and one splice (a few ms). Positions are the specification's: lines end at "\\n",
"\\r\\n" and "\\r"; a character past the end of its line is the line's end; a line past the last
is the end of the text. Only UTF-16 positions (the default encoding) are handled here; other
encodings keep pygls's code.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

from gmonlens_ide.sourcetext import LineLocator


class SplicingTextDocument(TextDocument):
    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        if self.position_codec.encoding not in (None, types.PositionEncodingKind.Utf16, "utf-16"):
            super()._apply_incremental_change(change)
            return
        self._source = splice(self.source, change.range, change.text)


def splice(text: str, rng: types.Range, new: str) -> str:
    """`text` with `rng` (LSP positions, UTF-16) replaced by `new`."""
    locator = LineLocator(text)
    start = locator.offset(rng.start.line, rng.start.character)
    end = max(locator.offset(rng.end.line, rng.end.character), start)
    return text[:start] + new + text[end:]


class SplicingWorkspace(Workspace):
    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return SplicingTextDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )


def install(workspace: Any) -> None:
    """Make the workspace pygls created at `initialize` create `SplicingTextDocument`s (it has no
    hook for its document class; the subclass only overrides a method, so the object's state
    stays valid)."""
    if type(workspace) is Workspace:
        workspace.__class__ = SplicingWorkspace
