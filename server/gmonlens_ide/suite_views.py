"""What the editors and agents are shown of a folder's `gmonlens test` folder (plain data; the
adapters render it): the hover's "reached by 7 of 42 tests" section of a routine, the list of
tests to choose from, and, per routine, every test that reaches it (the MCP `tests` tool).

The figures are `suites.Reaches`' (each test's profile of the loaded binary, computed once per
load in a thread of their own); a hover waits for them at most HOVER_WAIT seconds and, until they
are ready, says they are being counted.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmonlens.common.errors import GmonlensError

from . import markdown
from .session import LoadedFolder
from .suites import Choice, Reach, Reaches, Suite, find_suite, hover_section, reach, reaches_for, read_suite

HOVER_WAIT = 0.5  # seconds a hover waits for the tests' figures


def reaches(loaded: LoadedFolder) -> Reaches | None:
    """The tests' figures of `loaded` (None: the folder has no `gmonlens test` folder)."""
    s = loaded.settings
    return reaches_for(loaded.folder, loaded.generation, loaded.binary, loaded.program, s.profiles, s.trusted)


def routine_reach(loaded: LoadedFolder, rid: int, wait: float) -> Reach | str | None:
    """Which tests reach routine `rid`: a Reach, a sentence (counting, or why not), or None (no
    suite, or no test ran this binary)."""
    holder = reaches(loaded)
    if holder is None:
        return None
    figures = holder.get(wait)
    if figures is None:
        return "**Tests**: counting the calls in each test's profile…"
    if holder.problem is not None:
        return f"**Tests**: {markdown.text(holder.problem)}"
    if not figures:
        return None
    return reach(figures, loaded.profile.routines[rid].address)


def hover_text(loaded: LoadedFolder, rid: int, wait: float = HOVER_WAIT) -> str | None:
    """The hover's tests section of routine `rid` (module docstring), or None."""
    found = routine_reach(loaded, rid, wait)
    if found is None or isinstance(found, str):
        return found
    return hover_section(found)


@dataclass(frozen=True)
class TestsListing:
    """A folder's suite for a client to choose from: its tests, and what the folder loads."""

    __test__ = False

    suite: Suite | None
    selected: Choice | None  # None: discovery's choice (the whole suite when nothing else is found)
    problem: str | None = None


def listing(folder: str, profiles: tuple[str, ...], trusted: bool, selected: Choice | None) -> TestsListing:
    """The folder's suite, read (thread: it reads the index)."""
    path = find_suite(folder, profiles, trusted)
    if path is None:
        return TestsListing(
            None, selected, f"{folder}: no `gmonlens test` folder here or in its build folders"
        )
    try:
        return TestsListing(read_suite(path, folder, trusted), selected)
    except GmonlensError as e:
        return TestsListing(None, selected, str(e))
