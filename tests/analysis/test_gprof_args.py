"""`gmonlens report`'s option parsing without a compiler: every option of the table has a meaning
(`HANDLERS`), what each sets, and the exact usage messages (tests/integration/test_cli_options.py
checks the table against gprof itself)."""

from __future__ import annotations

import pytest

from gmonlens.commands.gprof_args import HANDLERS, OPTIONS, ReportArgs, option_key, parse_report_args
from gmonlens.common.errors import UsageError
from gmonlens.common.options import ArcSpec, SymSpec


def test_every_supported_option_has_a_handler_and_every_handler_an_option() -> None:
    keys = {option_key(o) for o in OPTIONS if o.supported and o.letter not in ("h", "v")}
    assert keys == set(HANDLERS)


def test_defaults() -> None:
    r = parse_report_args([])
    assert (r.binary, r.profiles, r.operands) == ("a.out", ["gmon.out"], [])
    assert r.styles == set() and r.analysis.incl_flat == () and not r.analysis.source_lines


def test_operands_permuted_among_options() -> None:
    r = parse_report_args(["prog", "-z", "g1", "--", "-g2"])
    assert (r.binary, r.profiles, r.zero) == ("prog", ["g1", "-g2"], True)


@pytest.mark.parametrize(
    ("argv", "wanted"),
    [
        (["-v"], (False, True)),
        (["-h"], (True, False)),
        (["--vers"], (False, True)),
        (["-zv", "-w1"], (False, True)),  # acted on at once: the bad width after it is not read
    ],
)
def test_help_and_version_end_the_scan(argv: list[str], wanted: tuple[bool, bool]) -> None:
    r = parse_report_args(argv)
    assert (r.help, r.version) == wanted


def test_symspec_lists() -> None:
    r = parse_report_args(["-pmain", "-P/b", "-qa/b", "-Qf", "-nA/B", "-Nx", "-eE", "-Fg", "-kq/r", "-B"])
    a = r.analysis
    assert a.incl_flat == (SymSpec.parse("main"),)
    assert a.excl_flat == (SymSpec.parse(""),)  # FROM of an arc spec: empty matches every routine
    assert a.incl_arcs == (ArcSpec.parse("a/b"),)
    assert a.excl_arcs == (ArcSpec.parse("q/r"),)
    assert a.excl_graph == (SymSpec.parse("f"), SymSpec.parse("E"))
    assert a.incl_graph == (SymSpec.parse("g"),)
    assert a.incl_time == (SymSpec.parse("A"), SymSpec.parse("g"))
    assert a.excl_time == (SymSpec.parse("x"),)
    assert r.styles == {"flat", "graph"} and r.user_styles == {"flat", "graph"}


def test_bare_negative_options_drop_a_section() -> None:
    r = parse_report_args(["-q", "-P", "-Z"])
    assert r.styles == {"graph"} and r.user_styles == {"graph", "flat", "exec"}
    r = parse_report_args(["-ZSPEC"])  # with a SPEC, -Z also asks for the counts
    assert r.styles == {"exec"} and r.exec_exclude == [SymSpec.parse("SPEC")]


def test_annotation_and_counts_need_source_lines() -> None:
    assert parse_report_args(["-A"]).analysis.source_lines
    assert parse_report_args(["-Cmain"]).analysis.source_lines
    assert not parse_report_args(["-J"]).analysis.source_lines
    assert parse_report_args(["--inline-file-names"]).inline_files


def test_values() -> None:
    r = parse_report_args(["-m", "3", "-t7", "-w", "120", "-I", "a::b", "-Ob", "-S", "syms", "-Rmap"])
    assert (r.min_count, r.table_length, r.width, r.search_dirs) == (3, 7, 120, ["a", "b"])
    assert (r.sum_format, r.analysis.profile_format, r.analysis.symbol_file) == ("bsd", "bsd", "syms")
    assert r.file_ordering == "map" and r.styles == {"order"}


def test_sum_with_sections_switches_on_lines() -> None:
    assert not parse_report_args(["-s"]).lines
    r = parse_report_args(["-s", "-p"])
    assert r.lines and r.analysis.line_granularity


def test_flags() -> None:
    r = parse_report_args(["-abcDzLyxiTl", "--json", "--no-demangle"])
    a = r.analysis
    assert a.no_static and a.static_call_graph and a.only_functions and a.line_granularity
    assert r.zero and r.full_paths and r.separate_files and r.file_info and r.traditional and r.lines
    assert r.json and not r.demangle and "info" in r.styles
    assert parse_report_args(["--no-demangle", "--demangle=gnu"]).demangle


def test_a_delete_that_is_no_arc_is_a_warning() -> None:
    r = parse_report_args(["-k", "main"])
    assert r.warnings == ["-k main: not an arc spec FROM/TO, ignored"] and r.analysis.excl_arcs == ()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-w3"], "invalid width '3'"),
        (["-wx"], "invalid width 'x'"),
        (["-mq"], "invalid number 'q' for -m"),
        (["-t", "1.5"], "invalid number '1.5' for -t"),
        (["-Ox"], "unsupported profile format 'x' (use a, m, b or 4)"),
        (["-r", "-Rmap"], "Only one of --function-ordering and --file-ordering may be specified."),
        (["-d"], "gprof option -d / --debug is not supported yet"),
        (["-d5"], "gprof option -d / --debug is not supported yet"),
        (["-%"], "invalid option -- '%'"),
        (["-w"], "option requires an argument -- 'w'"),
        (["--no"], "option '--no' is ambiguous; possibilities: '--no-static' '--no-annotated-source' "
                   "'--no-time' '--no-flat-profile' '--no-graph' '--no-exec-counts' '--no-demangle'"),
        (["--brief=1"], "option '--brief' doesn't allow an argument"),
        (["--width"], "option '--width' requires an argument"),
        (["--bogus"], "unrecognized option '--bogus'"),
    ],
)  # fmt: skip
def test_usage_errors(argv: list[str], message: str) -> None:
    with pytest.raises(UsageError) as e:
        parse_report_args(argv)
    assert e.value.message == message


def test_result_is_report_args() -> None:
    assert isinstance(parse_report_args(["-b"]), ReportArgs)
