"""Text as literal Markdown inside a table cell (pure): the one escape for the Markdown gmonlens
writes (`check --markdown`, `test --markdown`). GitHub- and GitLab-flavoured Markdown: a routine
called `operator|` or `a*b*` cannot break a table, and `<` `>` `&` are entities, so nothing in a
name becomes markup; control characters are shown as `\\xNN`; whitespace runs become one space.
"""

from __future__ import annotations

_SPECIAL = set("\\`*_[]|~")  # a table cell is inline text: these are all that can become markup
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def escape(text: str) -> str:
    """`text` as literal Markdown inside a table cell (module doc): one line, no markup."""
    out = []
    for ch in " ".join(text.split()):
        if ch in _ENTITIES:
            out.append(_ENTITIES[ch])
        elif ch in _SPECIAL:
            out.append("\\" + ch)
        elif ord(ch) < 32 or 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(f"\\\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)
