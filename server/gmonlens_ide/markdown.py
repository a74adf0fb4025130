"""Text from files (routine names, file names, labels, messages) made safe for a Markdown hover.

`text` backslash-escapes (CommonMark §2.4) every character that can open a Markdown or HTML
construct: `\\ ` * [ ] < > | ! & ~`, an underscore unless it joins two letters or digits (where it
cannot emphasise: `util_sum` stays as it is), `://` and `www.` (no autolink); control characters,
line breaks and terminal escapes are shown as `\\xNN` / `\\n`, not obeyed. So nothing from a binary
or a workspace opens a link, an image, raw HTML (`<img ...>`), emphasis, code or a table cell.
Links in a hover are built only by the renderer, to our own targets (`to_lsp.location_link`: a file
URI and a line).
"""

from __future__ import annotations

import re

_VISIBLE = {c: f"\\\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))}
_VISIBLE.update(
    {0x2028: "\\\\u2028", 0x2029: "\\\\u2029", ord("\n"): "\\\\n", ord("\r"): "\\\\r", ord("\t"): " "}
)
_SPECIAL = re.compile(
    r"[\\`*\[\]<>|!&~]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])|(?<=:)//|(?<=www)\.", re.IGNORECASE
)


def _escape(m: re.Match[str]) -> str:
    return "".join("\\" + c for c in m.group(0))


def text(value: str) -> str:
    """`value` as literal Markdown text (inline, one line, safe inside a table cell)."""
    return _SPECIAL.sub(_escape, value).translate(_VISIBLE)
