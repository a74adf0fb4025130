"""Incremental text sync whose work per edit is proportional to the edit.

pygls applies each `textDocument/didChange` edit by splitting the whole text into lines and
writing every line out again (80-180 ms per keystroke on SQLite's 9.5 MB sqlite3.c); splicing the
one string instead still copied 9.5 MB and counted the newlines before the edit (~14 ms an edit:
500 quick edits held requests up to 5.9 s). Here an open document is a list of its lines (each
with its end): an edit replaces the lines it touches (the line's text, the new text, and a move of
the list's pointers after it), and the whole text is joined only when something asks for it
(`source`). Positions are the specification's: lines end at "\\n", "\\r\\n" and "\\r"; a character
past the end of its line is the line's end; a line past the last is the end of the text; columns
count UTF-16 code units (other position encodings keep pygls's code).

Each edit is also told to the document's `EditLog` (which lines it replaced), so that what the
profile places on the lines of the build (lenses, line heat, the cursor's routine) follows
unsaved edits (`gmonlens_ide.linemap`).
"""

from __future__ import annotations

import os
import re
from typing import Any

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

from gmonlens_ide.linemap import EditLog
from gmonlens_ide.sourcetext import index_of_utf16

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def split_lines(text: str) -> list[str]:
    """`text` as LSP lines, each with its end; the last one (possibly "") has none."""
    if "\r" not in text:  # the usual case, at C speed
        parts = text.split("\n")
        lines = [p + "\n" for p in parts[:-1]]
        lines.append(parts[-1])
        return lines
    lines = _LINE.findall(text)
    if not lines or lines[-1].endswith(("\n", "\r")):
        lines.append("")
    return lines


def _content(line: str) -> str:
    """A line without its end."""
    if line.endswith("\r\n"):
        return line[:-2]
    return line[:-1] if line.endswith(("\n", "\r")) else line


class SplicingTextDocument(TextDocument):
    """A pygls document held as lines (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lines: list[str] | None = None  # the text's lines (split at the first edit)
        self.edits = EditLog(opened_ns=_mtime_ns(self.path))

    @property
    def source(self) -> str:
        if self._source is None and self._lines is not None:
            self._source = "".join(self._lines)
        return super().source

    def line_count(self) -> int:
        return len(self._text_lines())

    def line(self, i: int) -> str:
        """LSP line `i` (0-based) without its end ("" past the end)."""
        lines = self._text_lines()
        return _content(lines[i]) if 0 <= i < len(lines) else ""

    def _text_lines(self) -> list[str]:
        if self._lines is None:
            self._lines = split_lines(super().source)
        return self._lines

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        if self.position_codec.encoding not in (None, types.PositionEncodingKind.Utf16, "utf-16"):
            before = self._text_lines()
            _ = self.source  # pygls's code edits the joined text
            self._lines = None
            super()._apply_incremental_change(change)
            self._whole_changed(before)
            return
        self._splice(change.range, change.text)

    def _apply_full_change(self, change: types.TextDocumentContentChangeEvent) -> None:
        before = self._text_lines()
        self._lines = None
        super()._apply_full_change(change)
        self._whole_changed(before)

    def _whole_changed(self, before: list[str]) -> None:
        """The text was replaced whole: tell the log the lines between the common head and tail."""
        after = self._text_lines()
        head = 0
        while head < len(before) and head < len(after) and before[head] == after[head]:
            head += 1
        tail = 0
        while (
            tail < len(before) - head and tail < len(after) - head and before[-1 - tail] == after[-1 - tail]
        ):
            tail += 1
        self.edits.apply(head, len(before) - head - tail, len(after) - head - tail)

    def _splice(self, rng: types.Range, new: str) -> None:
        lines = self._text_lines()
        first, i1 = self._at(lines, rng.start)
        last, i2 = self._at(lines, rng.end)
        if (last, i2) < (first, i1):
            last, i2 = first, i1
        text = _content(lines[first])[:i1] + new + lines[last][i2:]
        if text.startswith("\n") and first > 0 and lines[first - 1].endswith("\r"):
            first -= 1  # a lone "\r" before the edit and the "\n" after it become one line end
            text = lines[first] + text
        block = split_lines(text)
        if last < len(lines) - 1:  # text ends with the last line's end: no line of its own after
            block.pop()
        old = lines[first : last + 1]
        lines[first : last + 1] = block
        self._source = None
        head = 0
        while head < len(old) and head < len(block) and old[head] == block[head]:
            head += 1
        tail = 0
        while tail < len(old) - head and tail < len(block) - head and old[-1 - tail] == block[-1 - tail]:
            tail += 1
        self.edits.apply(first + head, len(old) - head - tail, len(block) - head - tail)

    @staticmethod
    def _at(lines: list[str], pos: types.Position) -> tuple[int, int]:
        """(line, str index in its content) of an LSP position, clamped as the specification says."""
        if pos.line >= len(lines):
            last = len(lines) - 1
            return last, len(_content(lines[last]))
        if pos.line < 0:
            return 0, 0
        return pos.line, index_of_utf16(_content(lines[pos.line]), pos.character)


def _mtime_ns(path: str | None) -> int:
    try:
        return os.stat(path).st_mtime_ns if path else 0
    except (OSError, ValueError):
        return 0


def splice(text: str, rng: types.Range, new: str) -> str:
    """`text` with `rng` (LSP positions, UTF-16) replaced by `new`."""
    doc = SplicingTextDocument("untitled:splice", source=text)
    doc._splice(rng, new)
    return doc.source


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
