"""`python -m gmonlens_lsp report|serve`.

`python -m` puts the working directory (for an editor, often the workspace) first on sys.path: it is
dropped before anything else is imported (see `isolation`)."""

import sys

from .workspace.isolation import clean_sys_path

clean_sys_path()

from .cli import main  # noqa: E402

sys.exit(main())
