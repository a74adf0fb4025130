"""`python -m gmonlens_cli COMMAND ...` (the `gmonlens` console script without the script).

`python -m` puts the working directory (for an editor, often the workspace) first on sys.path: it is
dropped before anything else is imported (see `gmonlens_ide.isolation`)."""

import sys

from gmonlens_ide.isolation import clean_sys_path

clean_sys_path()

from gmonlens_cli.main import main  # noqa: E402

sys.exit(main())
