"""`python -m gmonlens_lsp [serve] [--stdio] [--log-level LEVEL]`: the language server alone.

`python -m` puts the working directory (for an editor, often the workspace) first on sys.path: it is
dropped before anything else is imported (see `gmonlens_ide.isolation`)."""

import sys

from gmonlens_ide.isolation import clean_sys_path

clean_sys_path()

from gmonlens_lsp.serve import main  # noqa: E402

args = sys.argv[1:]
sys.exit(main(args[1:] if args[:1] == ["serve"] else args))
