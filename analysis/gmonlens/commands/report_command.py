"""`gmonlens report`: what `gprof -b` prints for the same options and files (or `--json`). A
thin front end: parsed arguments in (`gprof_args.ReportArgs`), text out; the engine computes."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence

from gmonlens.errors import GmonlensError
from gmonlens.model import ElfSymbol, Profile

from .gprof_args import ReportArgs


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
        from gmonlens.files import write_file

        write_file("gmon.sum", data, "gmon.sum")  # never through a link planted in the directory
    if args.json:
        import json

        from gmonlens import healthfiles, report_json

        doc = report_json.to_json(profile, healthfiles.loaded_health(loaded, args.binary, args.profiles))
        if args.function_ordering:  # -r and -R: the listings gprof appends, one name per item
            from gmonlens.ordering import function_ordering

            doc["function_ordering"] = function_ordering(profile).splitlines()
        if objmap is not None:
            from gmonlens.fileorder import file_ordering

            doc["file_ordering"] = file_ordering(profile, objmap, loaded.file_symbols).splitlines()
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    from gmonlens.report import render_chunks, render_text

    opts = args.report_options(profile)
    if not (info or args.annotate or args.function_ordering or objmap is not None):
        _write_chunks(render_chunks(profile, opts))  # a large report is never held whole
        return 0
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


def _write_chunks(chunks: Iterable[str]) -> None:
    """Write the report's pieces to stdout as bytes (source bytes as read), a megabyte at a time."""
    out = sys.stdout.buffer
    batch: list[str] = []
    size = 0
    for chunk in chunks:
        batch.append(chunk)
        size += len(chunk)
        if size >= 1 << 20:
            out.write("".join(batch).encode("utf-8", "surrogateescape"))
            batch, size = [], 0
    out.write("".join(batch).encode("utf-8", "surrogateescape"))
    out.flush()


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
