"""Names a hostile workspace could give routines, and the check that Markdown keeps them inert
(shared by tests/server and tests/server_programs)."""

from __future__ import annotations

import re

HOSTILE = [
    "**[h](x)**",
    "<img src=x onerror=alert(1)>",
    "a|b|c",
    "two\nlines\r\n| x | y |",
    "\x1b[31mred\x1b[0m\x07",
    "`code` ~~gone~~ _em_ __strong__",
    "![i](https://evil.example/x.png)",
    "http://evil.example www.evil.example",
    "&lt;entity&gt; &#60;",
    "\\[escaped\\]",
    "\u2028\u2029\x85",
]


def unescaped(md: str, chars: str) -> list[str]:
    """Characters of `chars` in `md` not preceded by an odd number of backslashes."""
    out = []
    for m in re.finditer(f"[{re.escape(chars)}]", md):
        run = len(md[: m.start()]) - len(md[: m.start()].rstrip("\\"))
        if run % 2 == 0:
            out.append(m.group(0))
    return out
