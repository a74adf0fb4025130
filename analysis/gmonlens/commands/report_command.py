"""`gmonlens report`: what `gprof -b` prints for the same options and files (or `--json`). A
thin front end: parsed arguments in (`gprof_args.ReportArgs`), text out; the engine computes."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from gmonlens.common.model import ElfSymbol, Profile

from .gprof_args import ReportArgs

if TYPE_CHECKING:
    from gmonlens.load.loader import Loaded
    from gmonlens.profile.file_order import ObjectMap


def run_report(args: ReportArgs) -> int:
    """Load, then print the report (or JSON) to stdout; with -s also write gmon.sum in the cwd."""
    import gc

    from gmonlens.load.loader import load

    gc.disable()  # one short-lived computation over many small objects: collection only costs time
    _warn(args.warnings)
    objmap = _object_map(args.file_ordering)
    # the report names files as gprof does; JSON gives every routine its true source position
    loaded = load(
        args.binary,
        args.profile_files(),
        args.analysis,
        gprof_files=not args.json,
        all_lines=args.json,
        file_map=objmap,  # gprof's sections and its listing see the mapped symbols
    )
    _refuse_empty(args.profiles, loaded.gmon)
    info = ""
    if args.file_info:
        from gmonlens.output.file_info import file_info

        info = file_info(loaded.program, args.analysis.profile_format)
    _warn(loaded.profile.problems)
    if args.sum_file:
        from gmonlens.common.files import write_file
        from gmonlens.output.gmon_sum import gmon_sum

        data = gmon_sum(loaded.program, loaded.gmon, loaded.profile, args.sum_format)
        write_file("gmon.sum", data, "gmon.sum")  # never through a link planted in the directory
    if args.json:
        import json

        json.dump(_json_doc(args, loaded, objmap), sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    if not (info or args.annotate or args.function_ordering or objmap is not None):
        from gmonlens.output.report import render_chunks

        _write_chunks(
            render_chunks(loaded.profile, args.report_options(loaded.profile, loaded.image.symbols))
        )  # never held whole
        return 0
    out = _text(args, loaded, objmap, info)
    sys.stdout.buffer.write(out.encode("utf-8", "surrogateescape"))  # source bytes as read
    sys.stdout.flush()
    return 0


def _refuse_empty(profiles: Sequence[str], gmon: Any) -> None:
    """A profile of nothing but its header (or several): gprof prints nothing and exits 0, which
    reads as success; say it in one line (GmonlensError: exit 1, as for an empty file)."""
    if gmon.histograms or len(gmon.arcs) or gmon.bb_count:
        return
    from gmonlens.common.errors import GmonlensError

    label = ", ".join(profiles) or "gmon.out"
    raise GmonlensError(label, "no samples and no arcs (nothing after the file's header): nothing to report")


def _warn(texts: Iterable[str]) -> None:
    for w in texts:
        print(f"gmonlens: warning: {w}", file=sys.stderr)


def _object_map(path: str | None) -> ObjectMap | None:
    """-R MAP: the object-file map, read and parsed (None without -R)."""
    if path is None:
        return None
    from gmonlens.common.files import read_regular
    from gmonlens.profile.file_order import MAP_CAP, parse_map

    return parse_map(read_regular(path, MAP_CAP, "map file"), path)


def _json_doc(args: ReportArgs, loaded: Loaded, objmap: ObjectMap | None) -> dict[str, Any]:
    """--json: the profile, with -r's and -R's listings (one name per item) when asked."""
    from gmonlens.load import health as healthfiles
    from gmonlens.output import report_json

    profile = loaded.profile
    doc = report_json.to_json(profile, healthfiles.loaded_health(loaded, args.binary, args.profiles))
    if args.function_ordering:
        from gmonlens.profile.function_order import function_ordering

        doc["function_ordering"] = function_ordering(profile).splitlines()
    if objmap is not None:
        from gmonlens.profile.file_order import file_ordering

        doc["file_ordering"] = file_ordering(profile, objmap, loaded.file_symbols).splitlines()
    return doc


def _text(args: ReportArgs, loaded: Loaded, objmap: ObjectMap | None, info: str) -> str:
    """gprof's text: -i's summary, the sections, -A's listing (form feeds between), then -r/-R."""
    from gmonlens.output.report import render_text

    profile = loaded.profile
    parts = [info, render_text(profile, args.report_options(profile, loaded.image.symbols))]
    if args.annotate:
        parts.append(_annotated(args, loaded.image.symbols, profile) or "")
    out = "\f\n".join(p for p in parts if p)
    if args.function_ordering:  # gprof appends it with no form feed
        from gmonlens.profile.function_order import function_ordering

        out += function_ordering(profile)
    if objmap is not None:  # -R: the same place as -r
        from gmonlens.profile.file_order import file_ordering

        out += file_ordering(profile, objmap, loaded.file_symbols)
    return out


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
    from gmonlens.common.source_files import gprof_file_list
    from gmonlens.output.annotate import AnnotateOptions, annotated_source
    from gmonlens.output.exec_counts import selected

    files = gprof_file_list(profile.routines, symtab)
    chosen = selected(profile, args.anno_include, args.anno_exclude, files)
    opts = AnnotateOptions(
        chosen,
        tuple(args.search_dirs),
        args.min_count,
        args.table_length,
        args.separate_files,
        args.zero,
    )
    return annotated_source(profile, symtab, opts)
