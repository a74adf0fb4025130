"""`gmonlens mcp [--workspace DIR] [BINARY PROFILE...]`: the MCP server on stdin/stdout.

Without BINARY, the program and its profiles are found in DIR (default: the current directory) as
the language server finds them (gmonlens.yaml honoured). Logs go to stderr. The protocol keeps
the original stdout; file descriptor 1 is pointed at stderr so that nothing else (a stray print,
a helper process) can write into the protocol. The process then works from "/" with a PATH of
absolute directories (`gmonlens_ide.isolation`): nothing relative resolves in the workspace.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

USAGE = "gmonlens mcp [--workspace DIR] [--trust-workspace] [--allow-run] [BINARY PROFILE...]"
INSTRUCTIONS = (
    "gmonlens answers from a GNU gprof profile (gmon.out) of a C/C++ program, with gprof's own "
    "figures. Start with profile_summary, then top_routines (what is hot), routine_entry / callers / "
    "callees (who calls it, what it calls, with call-site lines), hot_lines (which source lines), "
    "compare_with_baseline (did a change help, beyond sampling noise), check (the workspace's "
    "performance budgets: exact call-count limits as CI checks them). Times are seconds; self time "
    "is measured by sampling (± its error); time on caller/callee lines is gprof's estimate. The "
    "profile is reloaded when the program is run again."
)
RECORD_INSTRUCTIONS = (
    " No profile yet, or a stale one? record runs the program (built with gcc -pg -g) and says why "
    "no profile came when none does."
)


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="gmonlens mcp",
        usage=USAGE,
        description="Model Context Protocol server (stdio) answering from a gprof profile",
    )
    parser.add_argument(
        "--workspace",
        metavar="DIR",
        default=None,
        help="folder to find the program and profiles in (default: .)",
    )
    parser.add_argument(
        "--trust-workspace",
        action="store_true",
        help="read the paths the folder's gmonlens.yaml names outside the folder (default: ignored)",
    )
    parser.add_argument(
        "--allow-run",
        action="store_true",
        help="offer the `record` tool, which runs the command an agent gives it (default: no tool runs anything)",
    )
    parser.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    parser.add_argument(
        "files",
        nargs="*",
        metavar="BINARY PROFILE",
        help="the profiled program and its profile files (relative paths: in DIR)",
    )
    args = parser.parse_args(list(argv))
    if len(args.files) == 1:
        parser.error("give the binary and at least one profile, or neither")
    return args


def _protocol_streams() -> tuple[object, object]:
    """(reader, writer) on the original stdin/stdout; fd 1 then goes to stderr."""
    reader = os.fdopen(os.dup(0), "rb")
    writer = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return reader, writer


def main(argv: Sequence[str]) -> int:
    args = _parse(argv)
    from gmonlens.common import mallocpolicy

    mallocpolicy.apply()  # a long-running process: freed memory goes back (see the module)
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, args.log_level),
        format="gmonlens mcp %(levelname)s %(message)s",
    )
    folder = os.path.abspath(args.workspace or os.getcwd())
    if not os.path.isdir(folder):
        print(f"gmonlens mcp: {folder}: not a directory", file=sys.stderr)
        return 2
    binary, profiles = (args.files[0], tuple(args.files[1:])) if args.files else (None, ())

    from gmonlens import __version__
    from gmonlens_ide.isolation import neutral_process

    from .rpc import Server, ServerInfo
    from .tools import Tools
    from .workspace import Workspace

    workspace = Workspace(
        folder, binary, profiles, args.trust_workspace
    )  # paths made absolute before leaving the cwd
    neutral_process()
    reader, writer = _protocol_streams()
    instructions = INSTRUCTIONS + (RECORD_INSTRUCTIONS if args.allow_run else "")
    info = ServerInfo("gmonlens", __version__, "gmonlens: gprof profiles", instructions)
    server = Server(Tools(workspace, args.allow_run), reader, writer, info)  # type: ignore[arg-type]
    try:
        server.serve()
    except KeyboardInterrupt:  # run by hand and stopped
        sys.stderr.flush()
        os._exit(130)
    # the client is gone: a call may still be computing on the worker; do not wait for it
    sys.stderr.flush()
    os._exit(0)
