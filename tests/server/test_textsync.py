"""Incremental edits spliced at LSP positions (textsync.py): the same text as the specification's
reading of the positions, and as pygls's own code where pygls reads them the same way."""

from __future__ import annotations

import random
import re

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

from gmonlens_ide.sourcetext import LineLocator
from gmonlens_lsp.textsync import SplicingTextDocument, install, splice

PIECES = ["a", "bc", "\n", "\r\n", "\r", "é", "𝄞", "\x0c", " ", ""]


def reference_offset(text: str, line: int, character: int) -> int:
    """The specification's offset, the slow way: line starts after every \\r\\n, \\r or \\n; UTF-16
    units counted character by character; clamped to the line's end and the text's end."""
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
    if line >= len(starts):
        return len(text)
    ends = [m.start() for m in re.finditer(r"\r\n|\r|\n", text)] + [len(text)]
    pos, units = starts[line], 0
    while pos < ends[line] and units < character:
        units += 2 if ord(text[pos]) > 0xFFFF else 1
        pos += 1
    return pos


def position(rng: random.Random, text: str) -> types.Position:
    lines = len(re.split(r"\r\n|\r|\n", text))
    return types.Position(rng.randint(0, lines + 1), rng.randint(0, 8))


def test_splice_is_the_specification() -> None:
    rng = random.Random(11)
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 50)))
        if rng.random() < 0.5:  # the usual case: no lone \r
            text = text.replace("\r", "")
        a, b = position(rng, text), position(rng, text)
        if (b.line, b.character) < (a.line, a.character):
            a, b = b, a
        new = rng.choice(["", "x", "\n", "yy\r\nz", "𝄞"])
        start, end = reference_offset(text, a.line, a.character), reference_offset(text, b.line, b.character)
        want = text[:start] + new + text[max(end, start) :]
        assert splice(text, types.Range(a, b), new) == want, (text, a, b, new)
        loc = LineLocator(text, chunk=rng.choice([1, 3, 16]))
        assert loc.offset(a.line, a.character) == start, (text, a)


def inside(rng: random.Random, lines: list[str]) -> types.Position:
    i = rng.randrange(len(lines))
    return types.Position(i, rng.randint(0, len(lines[i].encode("utf-16-le")) // 2))


def test_splice_agrees_with_pygls_inside_the_text() -> None:
    """Plain "\\n" text, positions on existing lines within them: pygls's result, much faster."""
    rng = random.Random(12)
    for _ in range(500):
        lines = [
            "".join(rng.choice("ab é𝄞") for _ in range(rng.randint(0, 6))) for _ in range(rng.randint(1, 8))
        ]
        text = "\n".join(lines)

        a, b = inside(rng, lines), inside(rng, lines)
        if (b.line, b.character) < (a.line, a.character):
            a, b = b, a
        change = types.TextDocumentContentChangePartial(types.Range(a, b), rng.choice(["", "x", "\nq"]))
        theirs, ours = TextDocument("file:///t.c", text), SplicingTextDocument("file:///t.c", text)
        theirs.apply_change(change)
        ours.apply_change(change)
        assert ours.source == theirs.source, (text, a, b)


def test_install_on_the_workspace() -> None:
    ws = Workspace("file:///w")
    install(ws)
    uri = "file:///w/a%20b.c"
    ws.put_text_document(types.TextDocumentItem(uri, "c", 1, "int a;\r\nint b;\n"))
    doc = ws.get_text_document(uri)
    assert isinstance(doc, SplicingTextDocument)
    at = types.Position(1, 4)
    ws.update_text_document(
        types.VersionedTextDocumentIdentifier(2, uri),
        types.TextDocumentContentChangePartial(types.Range(at, at), "x"),
    )
    assert doc.source == "int a;\r\nint xb;\n" and doc.version == 2
    whole = types.TextDocumentContentChangeWholeDocument("all new")
    ws.update_text_document(types.VersionedTextDocumentIdentifier(3, uri), whole)
    assert doc.source == "all new"


def test_a_long_run_of_edits_is_the_specification_and_the_map_follows_it() -> None:
    """Edits applied one after another to the lines held (never the joined text): the text the
    specification's reading gives, and every line the edit log says is unchanged holds the text
    it had (issue 33: lenses follow unsaved edits)."""
    rng = random.Random(13)
    for _ in range(60):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 80)))
        if rng.random() < 0.6:
            text = text.replace("\r", "")
        doc = SplicingTextDocument("file:///nowhere/t.c", text)
        base = re.split(r"\r\n|\r|\n", text)
        for _ in range(25):
            a, b = position(rng, text), position(rng, text)
            if (b.line, b.character) < (a.line, a.character):
                a, b = b, a
            new = rng.choice(["", "x", "\n", "yy\r\nz", "𝄞", "\n\n", "q\n"])
            start, end = (
                reference_offset(text, a.line, a.character),
                reference_offset(text, b.line, b.character),
            )
            text = text[:start] + new + text[max(end, start) :]
            doc.apply_change(types.TextDocumentContentChangePartial(types.Range(a, b), new))
            assert doc._source is None  # nothing joined the whole text
            now = re.split(r"\r\n|\r|\n", text)
            assert doc.line_count() == len(now) and [doc.line(i) for i in range(len(now))] == now
            moved = doc.edits.since(None)
            for i, line in enumerate(base):
                at = moved.current(i) if moved is not None else i
                if at is not None:
                    assert now[at] == line, (i, at)
        assert doc.source == text
