"""`python -m gmonlens_lsp report|serve`."""

import sys

from .cli import main

sys.exit(main())
