"""Starts the gmonlens server bundled in this extension: bundled/libs first on sys.path, then
`gmonlens_lsp` with the arguments given (the extension passes `serve --stdio`).

Run with `python -I` so the person's PYTHONPATH and user site-packages cannot shadow the bundle.
Writes nothing to stdout (the protocol's channel); problems go to stderr, which the editor shows.
"""

import os
import runpy
import sys

MIN = (3, 10)

if sys.version_info < MIN:
    sys.stderr.write(
        "gmonlens: Python %d.%d at %s is too old; gmonlens needs >= %d.%d "
        "(set gmonlens.interpreter)\n" % (sys.version_info[:2] + (sys.executable,) + MIN)
    )
    sys.exit(2)

LIBS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bundled", "libs")
if not os.path.isdir(LIBS):
    sys.stderr.write("gmonlens: the bundled libraries are missing (%s); reinstall the extension\n" % LIBS)
    sys.exit(2)
sys.path.insert(0, LIBS)
# The server starts its helpers isolated (`python -I`) and hands them its own sys.path (LIBS included).
sys.argv = ["gmonlens", *sys.argv[1:]]
runpy.run_module("gmonlens_lsp", run_name="__main__", alter_sys=True)
