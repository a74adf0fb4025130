"""textDocument/didSave: a saved text is a version a build may compile; the open document's edit
log starts a map from it (`linemap.EditLog.saved`), so lenses and heat follow the edits made after
the save the binary was built from."""

from __future__ import annotations

from lsprotocol import types

from .. import to_lsp
from ..from_lsp import open_doc
from ..server import GmonlensServer, safe


def register(server: GmonlensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, to_lsp.save_options())
    @safe()
    def on_save(ls: GmonlensServer, params: types.DidSaveTextDocumentParams) -> None:
        doc = open_doc(ls, params.text_document.uri)
        edits = getattr(doc, "edits", None)
        if edits is not None:
            edits.saved()
