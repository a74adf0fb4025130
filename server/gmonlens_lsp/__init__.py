"""gmonlens language server and command line. Importing this package must not import pygls, nor
anything else: `python -m gmonlens_lsp` cleans sys.path (see `isolation`) before other imports."""

from typing import Any

__all__ = ["__version__"]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from gmonlens import __version__

        return __version__
    raise AttributeError(name)
