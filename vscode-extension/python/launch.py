"""Starts the gmonlens server bundled in this extension: bundled/libs first on sys.path, then
`gmonlens_lsp` with the arguments given (the extension passes `serve --stdio`).

Run with `python -I` so the person's PYTHONPATH and user site-packages cannot shadow the bundle.
Writes nothing to stdout (the protocol's channel); problems go to stderr, which the editor shows.

capstone (the disassembler: annotated disassembly, gprof's -c) has a compiled library, so only a
platform's package of the extension carries it, in bundled/native (capstone's wheel for that
platform, unpacked). When that library loads in this interpreter, bundled/native goes on sys.path
right after bundled/libs, ahead of any capstone the interpreter has: the listing's text is tuned to
the pinned capstone's spelling, as the other bundled packages are pinned. When it does not load
(an interpreter of another architecture, say) it stays off the path and the interpreter's own
capstone, if any, is used. LIBCAPSTONE_PATH is dropped when the bundled one is used, so its binding
loads the library next to it (and so do the helper processes, which inherit the environment).
"""

import ctypes
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

BUNDLED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bundled")
LIBS = os.path.join(BUNDLED, "libs")
NATIVE = os.path.join(BUNDLED, "native")
CAPSTONE_LIBRARY = {"darwin": "libcapstone.dylib", "win32": "capstone.dll", "cygwin": "capstone.dll"}


def bundled_capstone_loads():
    """Whether this package carries capstone and its library loads here (None: not carried;
    else True, or the reason it does not load). Loading by absolute path: no search, nothing
    from the working directory."""
    library = os.path.join(NATIVE, "capstone", "lib", CAPSTONE_LIBRARY.get(sys.platform, "libcapstone.so"))
    if not os.path.isdir(os.path.join(NATIVE, "capstone")):
        return None
    try:
        major = ctypes.CDLL(library).cs_version(None, None) >> 8
    except (OSError, AttributeError) as e:
        return str(e) or type(e).__name__
    return True if major == 5 else "capstone %d, not 5" % major


if not os.path.isdir(LIBS):
    sys.stderr.write("gmonlens: the bundled libraries are missing (%s); reinstall the extension\n" % LIBS)
    sys.exit(2)
sys.path.insert(0, LIBS)
native = bundled_capstone_loads()
if native is True:
    sys.path.insert(1, NATIVE)
    os.environ.pop("LIBCAPSTONE_PATH", None)
elif native is not None:
    sys.stderr.write(
        "gmonlens: the bundled capstone does not load in %s (%s); using the interpreter's own, if any\n"
        % (sys.executable, native)
    )
# The server starts its helpers isolated (`python -I`) and hands them its own sys.path (LIBS included).
sys.argv = ["gmonlens", *sys.argv[1:]]
runpy.run_module("gmonlens_lsp", run_name="__main__", alter_sys=True)
