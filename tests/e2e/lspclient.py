"""A pytest-lsp client session on `gmonlens serve --stdio`, with helpers to wait for the server."""

from __future__ import annotations

import asyncio
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls import uris
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities


def uri(path: Path | str) -> str:
    return uris.from_fs_path(str(path)) or ""


@asynccontextmanager
async def session(
    folders: list[Path],
    cache: Path,
    *,
    init_options: dict[str, Any] | None = None,
    capabilities: str = "visual-studio-code",
    configuration: dict[str, Any] | None = None,
    folder_configuration: dict[Path, dict[str, Any]] | None = None,
    env_extra: dict[str, str] | None = None,
) -> Any:
    env = {"XDG_CACHE_HOME": str(cache), "PATH": "/usr/bin:/bin", "HOME": str(cache), **(env_extra or {})}
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "gmonlens_lsp", "serve", "--stdio"], server_env=env
    )
    client: LanguageClient = await config.start()
    client.statuses = []  # type: ignore[attr-defined]
    client.refreshes = 0  # type: ignore[attr-defined]

    @client.feature("gmonlens/status")
    def on_status(params: Any) -> None:
        client.statuses.append(params)  # type: ignore[attr-defined]

    client.registrations = []  # type: ignore[attr-defined]

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def on_register(params: Any) -> None:
        client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def on_refresh(params: Any) -> None:
        client.refreshes += 1  # type: ignore[attr-defined]

    if configuration is not None:
        client.set_configuration(configuration, section="gmonlens")
    for folder, values in (folder_configuration or {}).items():
        client.set_configuration(values, section="gmonlens", scope_uri=uri(folder))
    caps = client_capabilities(capabilities)
    client.init_result = await client.initialize_session(  # type: ignore[attr-defined]
        types.InitializeParams(
            capabilities=caps,
            root_uri=uri(folders[0]),
            workspace_folders=[types.WorkspaceFolder(uri=uri(f), name=f.name) for f in folders],
            initialization_options=init_options,
        )
    )
    try:
        yield client
    finally:
        await client.shutdown_session()
        await client.stop()


def _get(status: Any, key: str) -> Any:
    return status.get(key) if isinstance(status, dict) else getattr(status, key, None)


async def wait_status(client: LanguageClient, states: tuple[str, ...] = ("loaded", "problem", "idle"),
                      after: int = 0, timeout: float = 60.0) -> Any:  # fmt: skip
    """The first gmonlens/status (from index `after`) whose state is in `states`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for s in client.statuses[after:]:  # type: ignore[attr-defined]
            if _get(s, "state") in states:
                return s
        await asyncio.sleep(0.05)
    raise AssertionError(f"no status in {states}; got {client.statuses}")  # type: ignore[attr-defined]


def state_of(status: Any) -> str:
    return str(_get(status, "state"))


async def open_doc(client: LanguageClient, path: Path, language: str = "c") -> str:
    u = uri(path)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=u, language_id=language, version=1, text=path.read_text()
            )
        )
    )
    return u


def position_of(path: Path, needle: str, occurrence: int = 0, offset: int = 0) -> types.Position:
    """Position of the `occurrence`-th `needle` in the file (+ `offset` characters)."""
    count = 0
    for i, line in enumerate(path.read_text().splitlines()):
        start = 0
        while (col := line.find(needle, start)) >= 0:
            if count == occurrence:
                return types.Position(line=i, character=col + offset)
            count += 1
            start = col + 1
    raise AssertionError(f"{needle!r} not in {path}")
