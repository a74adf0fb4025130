"""What the server tells the client about a folder: problems said once (window/showMessage when they
stop loading, else window/logMessage), log lines, the `gmonlens/status` notification, and the
code-lens and inlay-hint refresh requests. A text already said for a folder is not said again until
the folder loads cleanly or the problem changes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Literal

from pygls.capabilities import get_capability

from gmonlens.common.model import Profile
from gmonlens.profile.certainty import Health
from gmonlens_ide.session import FolderState

from . import to_lsp, wire
from .server import GmonlensServer

log = logging.getLogger("gmonlens")
STATUS = "gmonlens/status"


def warn_once(ls: GmonlensServer, state: FolderState, text: str, *, blocking: bool = False) -> None:
    if text in state.said:
        return
    state.said.add(text)
    log.info("%s", text)
    if blocking:
        ls.window_show_message(to_lsp.show_message("warning", text))
    else:
        ls.window_log_message(to_lsp.log_message("warning", text))


def log_info(ls: GmonlensServer, text: str) -> None:
    log.info("%s", text)
    ls.window_log_message(to_lsp.log_message("info", text))


def routines_with_figures(profile: Profile) -> int:
    """The status's routine count: routines with time or calls (those with a lens)."""
    return sum(1 for r in profile.routines if r.has_figures)


def send_status(
    ls: GmonlensServer,
    state: FolderState,
    status: Literal["loading", "loaded", "problem", "idle"],
    message: str,
) -> None:
    loaded = state.loaded
    if loaded is None:
        body = wire.status(status, message, state.uri, 0.0, 0, None, ())
    else:
        figures = routines_with_figures(loaded.profile)
        body = wire.status(
            status, message, state.uri, loaded.total_seconds, figures, loaded.comparison, loaded.health
        )
    ls.protocol.notify(STATUS, body)


LOGGED_HEALTH = frozenset({"binary_changed", "sources_newer"})  # logged where found (session.py)


def health_message(health: Iterable[Health]) -> str:
    """The one message that says a profile's health, each problem with its fix ("" when healthy).
    A binary or sources newer than the profile are not in it: they are logged, not shown."""
    health = [h for h in health if h.code not in LOGGED_HEALTH]
    if not health:
        return ""
    return "Profile health: " + " ".join(
        f"{h.message[:1].upper()}{h.message[1:]}. Fix: {h.fix}." for h in health
    )


async def refresh_lenses(ls: GmonlensServer) -> None:
    if get_capability(ls.client_capabilities, "workspace.code_lens.refresh_support", False):
        try:
            await asyncio.wait_for(ls.workspace_code_lens_refresh_async(None), timeout=10)
        except Exception as exc:  # a client that fails the refresh still gets lenses on request
            log.info("codeLens/refresh failed: %s", exc)


async def refresh_inlay_hints(ls: GmonlensServer) -> None:
    """Line heat changes with the profile: ask the client to ask again (when it can)."""
    if get_capability(ls.client_capabilities, "workspace.inlay_hint.refresh_support", False):
        try:
            await asyncio.wait_for(ls.workspace_inlay_hint_refresh_async(None), timeout=10)
        except Exception as exc:  # the client still asks for hints when it shows the file
            log.info("inlayHint/refresh failed: %s", exc)


def can_refresh_hints(ls: GmonlensServer) -> bool:
    return bool(get_capability(ls.client_capabilities, "workspace.inlay_hint.refresh_support", False))


async def refresh_listings(ls: GmonlensServer, folder: str) -> None:
    """A folder was reloaded: ask the client to fetch its listing documents again
    (`workspace/textDocumentContent/refresh`, LSP 3.18), where it declared that feature."""
    if get_capability(ls.client_capabilities, "workspace.text_document_content", None) is None:
        return
    from urllib.parse import quote

    mark = "folder=" + quote(folder, safe="")
    for uri in sorted(u for u in ls.listings if mark in u):
        try:
            await asyncio.wait_for(
                ls.workspace_text_document_content_refresh_async(to_lsp.content_refresh(uri)),
                timeout=10,
            )
        except Exception as exc:  # the client asks again when the document is shown
            log.info("textDocumentContent/refresh failed: %s", exc)
