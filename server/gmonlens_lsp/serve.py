"""`gmonlens serve [--stdio] [--log-level LEVEL]`: the language server on stdin/stdout.

stderr gets WARNING and worse by default (the client already receives INFO as logMessage).

Logs go to stderr (never stdout: it carries the protocol). `--stdio` is accepted because clients
such as vscode-languageclient append it; it is the only transport.
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from collections.abc import Sequence

SWITCH_INTERVAL = 0.001  # seconds a thread keeps the GIL when another waits (CPython: 0.005)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="gmonlens serve", description="gmonlens language server (LSP on stdio)"
    )
    parser.add_argument("--stdio", action="store_true", help="speak LSP on stdin/stdout (the default)")
    # INFO lines already reach the client as window/logMessage; stderr carries warnings and worse
    parser.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    args, unknown = parser.parse_known_args(list(argv))
    from gmonlens.common import mallocpolicy

    mallocpolicy.apply()  # before any thread: freed memory goes back (see the module)
    logging.basicConfig(
        stream=sys.stderr, level=getattr(logging, args.log_level), format="gmonlens %(levelname)s %(message)s"
    )
    logging.getLogger("pygls").setLevel(logging.WARNING)
    if unknown:
        logging.getLogger("gmonlens").warning("ignoring arguments: %s", " ".join(unknown))
    from gmonlens_ide.isolation import neutral_process

    from .gcpause import paused
    from .generated_code import cached_generated_code

    # the server's modules: lsprotocol's classes compiled once, not at every start; no collection
    # pass over what the imports make (it lives as long as the server), frozen after
    with paused(), cached_generated_code():
        from .factory import create_server
        from .protocol import QuietClientErrors

    for handler in logging.getLogger().handlers:
        handler.addFilter(QuietClientErrors())

    # a loaded profile is hundreds of thousands of long-lived objects: collect young objects less
    # often (the loaded ones are frozen out of collections, see reload._apply)
    gc.set_threshold(20_000, 20, 50)
    # a request's handler hands the GIL back and forth (event loop, to_thread, the stdout write);
    # beside a CPU-bound background thread each hand-back waited up to the 5 ms default: requests
    # during the certainty and the heat took 70-150 ms at 100,000 routines, 19-52 ms at 1 ms
    # (bench/scale_bench.py's `during_*`; first lenses no slower)
    sys.setswitchinterval(SWITCH_INTERVAL)

    neutral_process()  # nothing relative may resolve in the workspace (see isolation)
    create_server().start_io()
    return 0
