"""A routine named by an agent -> the profile's routine: the editor-neutral layer's rule
(`gmonlens_ide.lookup`), its refusals as tool errors."""

from __future__ import annotations

from gmonlens_ide import lookup

from .workspace import ToolFailure, View


def find(view: View, name: str, file: str | None = None) -> int:
    """The routine `name` (optionally in a file ending with `file`); raises ToolFailure naming the
    candidates or the nearest names."""
    try:
        return lookup.find(view.loaded, name, file)
    except lookup.NotFound as exc:
        raise ToolFailure(exc.message, exc.data) from None


def place(view: View, rid: int) -> tuple[str | None, int]:
    """(file relative to the folder when inside it, 1-based line) of a routine; (None, 0) unknown."""
    return lookup.place(view.loaded, rid)


def ref(view: View, rid: int) -> str:
    """A name of the routine no other routine has, which `find` takes back (`lookup.ref`)."""
    return lookup.ref(view.loaded, rid)
