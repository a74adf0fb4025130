"""The identifier under the cursor (`from_lsp.word_in`): LSP positions, UTF-16 columns."""

from __future__ import annotations

import pytest
from lsprotocol import types

from gmonlens_lsp.from_lsp import word_in


@pytest.mark.parametrize(
    ("line", "character", "word"),
    [
        ("int work(int n)", 4, "work"),
        ("int work(int n)", 6, "work"),
        ("int work(int n)", 8, "work"),  # just after the name
        ("Extender::~Extender() {", 10, "~Extender"),  # on a destructor's `~` (where its lens sits)
        ("Extender::~Extender() {", 11, "~Extender"),
        ("Extender::~Extender() {", 14, "~Extender"),
        ("x = ~mask;", 4, "~mask"),
        ("a + b", 2, None),
        ("é work()", 2, "work"),
    ],
)
def test_word_in(line: str, character: int, word: str | None) -> None:
    assert word_in([line], types.Position(0, character)) == word
