"""`gmonlens report` (a drop-in for `gprof -b`, plus --json), `gmonlens diff`, `gmonlens export`
(callgrind, pprof, dot) and `gmonlens serve` (the language server).

`report`, `diff` and `export` must stay lean: nothing on its path imports pygls; `serve` imports the server lazily.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from gmonlens import __version__
from gmonlens.errors import GmonlensError, UsageError
from gmonlens.model import ElfSymbol, Profile

from .gprof_args import ReportArgs, options_help, parse_report_args

HELP = """usage: gmonlens report [options] [BINARY [PROFILE...]]
       gmonlens diff [options] BASE_BINARY BASE_PROFILE... -- NEW_BINARY NEW_PROFILE...
       gmonlens diff [options] BINARY BASE_PROFILE NEW_PROFILE
       gmonlens export --format callgrind|pprof|dot [gprof options] [BINARY [PROFILE...]] [-o FILE]
       gmonlens serve [--stdio]
       gmonlens --version

report  prints what `gprof -b` prints for the same options (defaults: a.out gmon.out); gprof's
        options, with gprof's long names and argument rules (SPEC: a gprof symspec):
{options}diff    two profiles side by side, changes tested against sampling noise (README, "diff");
        --json, --fail-over PERCENT (exit 3), --threshold Z, --normalize.
export  writes the profile for callgrind_annotate/KCachegrind, go tool pprof or Graphviz
        (README, "gmonlens export"); also --source-map FROM=TO, --node-thres/--edge-thres PCT (dot).
serve   the language server, speaking LSP on stdin/stdout.
"""

# gprof -v prints "GNU gprof (GNU Binutils for Debian) 2.40", its origin and its licence: the same
# three lines, for gmonlens.
VERSION = f"""gmonlens report (gmonlens) {__version__}
Computes GNU gprof 2.40's reports from gmon.out and the ELF binary, byte for byte.
This program is free software (MIT licence).  This program has absolutely no warranty.
"""


def help_text() -> str:
    return HELP.format(options=options_help())


def run_report(args: ReportArgs) -> int:
    import gc

    from gmonlens.loader import load

    gc.disable()  # one short-lived computation over many small objects: collection only costs time

    for w in args.warnings:
        print(f"gmonlens: warning: {w}", file=sys.stderr)
    objmap = None
    if args.file_ordering is not None:
        from gmonlens.fileorder import MAP_CAP, parse_map
        from gmonlens.files import read_regular

        objmap = parse_map(read_regular(args.file_ordering, MAP_CAP, "map file"), args.file_ordering)
    # the report names files as gprof does; JSON gives every routine its true source position
    loaded = load(
        args.binary,
        args.profiles,
        args.analysis,
        gprof_files=not args.json,
        all_lines=args.json,
        file_map=objmap,  # gprof's sections and its listing see the mapped symbols
    )
    info = ""
    if args.file_info:
        from gmonlens.fileinfo import file_info

        info = file_info(loaded.image, args.profiles, args.analysis.profile_format)
    profile = loaded.profile
    for p in profile.problems:
        print(f"gmonlens: warning: {p}", file=sys.stderr)
    if args.sum_file:
        from gmonlens.gmonsum import write_sum
        from gmonlens.linetable import LineTable

        image = loaded.image
        lines = scopes = None
        if image.has_debug_info:
            from gmonlens.dwarf import DwarfIndex
            from gmonlens.errors import one_line
            from gmonlens.scopes import elf_code_names, function_scopes

            try:
                lines = LineTable.from_elf(args.binary, bfd=True)  # gprof's line symbols: BFD's rule
                scopes = function_scopes(DwarfIndex(args.binary), elf_code_names(image.symbols))
            except GmonlensError:
                raise
            except Exception as e:  # malformed DWARF: pyelftools raises many types
                raise GmonlensError(args.binary, f"cannot read DWARF for gmon.sum ({one_line(e)})") from None
        data = write_sum(
            loaded.gmon, profile, image.address_size, image.little_endian, args.sum_format, lines, scopes
        )
        try:
            with open("gmon.sum", "wb") as fh:
                fh.write(data)
        except OSError as e:  # a directory of that name, a read-only folder, a full disk
            raise GmonlensError("gmon.sum", f"cannot write: {e.strerror or e}") from None
    if args.json:
        import json

        from gmonlens.healthfiles import loaded_health
        from gmonlens.report_json import to_json

        doc = to_json(profile, loaded_health(loaded, args.binary, args.profiles))
        if args.function_ordering:  # -r and -R: the listings gprof appends, one name per item
            from gmonlens.ordering import function_ordering

            doc["function_ordering"] = function_ordering(profile).splitlines()
        if objmap is not None:
            from gmonlens.fileorder import file_ordering

            doc["file_ordering"] = file_ordering(profile, objmap, loaded.file_symbols).splitlines()
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    from gmonlens.report import render_text

    opts = args.report_options(profile)
    parts = [info, render_text(profile, opts)]
    if args.annotate:
        parts.append(_annotated(args, loaded.image.symbols, profile) or "")
    out = "\f\n".join(p for p in parts if p)
    if args.function_ordering:  # gprof appends it with no form feed
        from gmonlens.ordering import function_ordering

        out += function_ordering(profile)
    if objmap is not None:  # -R: the same place as -r
        from gmonlens.fileorder import file_ordering

        out += file_ordering(profile, objmap, loaded.file_symbols)
    sys.stdout.buffer.write(out.encode("utf-8", "surrogateescape"))  # source bytes as read
    sys.stdout.flush()
    return 0


def _annotated(args: ReportArgs, symtab: Sequence[ElfSymbol], profile: Profile) -> str | None:
    """-A: the annotated source (with -y written to FILE-ann in the current directory)."""
    from gmonlens.annotate import AnnotateOptions, annotated_source
    from gmonlens.execcounts import selected

    chosen = selected(profile, args.anno_include, args.anno_exclude)
    opts = AnnotateOptions(
        chosen,
        tuple(args.search_dirs),
        args.min_count,
        args.table_length,
        args.separate_files,
        args.zero,
    )
    return annotated_source(profile, symtab, opts)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(help_text(), end="", file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] in ("-V", "-v", "--version"):
        print(VERSION, end="")
        return 0
    cmd, rest = argv[0], argv[1:]
    if cmd == "serve":
        from .serve import main as serve_main

        return serve_main(rest)
    for stream in (sys.stdout, sys.stderr):  # file and symbol names are bytes: write them back as such
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="surrogateescape")
    if cmd not in ("report", "diff", "export"):
        print(f"gmonlens: unknown command '{cmd}' (try: report, diff, export, serve)", file=sys.stderr)
        return 2
    try:
        if cmd == "diff":
            from .diffcli import USAGE as DIFF_USAGE
            from .diffcli import parse_diff_args, run_diff

            if not rest or rest[0] in ("-h", "--help"):
                print(DIFF_USAGE, end="", file=sys.stdout if rest else sys.stderr)
                return 0 if rest else 2
            if any(a in ("-v", "--version") for a in rest):  # as `report -v` (gprof acts on it at once)
                print(VERSION, end="")
                return 0
            return run_diff(parse_diff_args(rest))
        if cmd == "export":
            from .export_cmd import EXPORT_HELP, parse_export_args, run_export

            if any(a in ("-h", "--help") for a in rest):
                print(EXPORT_HELP, end="")
                return 0
            return run_export(parse_export_args(rest))
        args = parse_report_args(rest)
        if args.help:
            print(help_text(), end="")
            return 0
        if args.version:
            print(VERSION, end="")
            return 0
        return run_report(args)
    except UsageError as e:
        print(f"gmonlens {cmd}: {e.message}", file=sys.stderr)
        return 2
    except GmonlensError as e:
        print(f"gmonlens: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except MemoryError:
        print("gmonlens: out of memory", file=sys.stderr)
        return 70
    except RecursionError:
        print("gmonlens: input nested too deeply", file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
