"""gmonlens language server and command line. Importing this package must not import pygls."""

from gmonlens import __version__

__all__ = ["__version__"]
