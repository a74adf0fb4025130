"""Settings: gmonlens.yaml (snake_case) under the client's camelCase section; bad values fall back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gmonlens_ide.settings import (
    DEFAULT_LENS_TITLE,
    Settings,
    client_section,
    effective_settings,
    read_config_file,
)


def test_defaults_without_file(tmp_path: Path) -> None:
    assert read_config_file(str(tmp_path)) == (Settings(), [])
    assert effective_settings(str(tmp_path), None) == (Settings(), [])


def test_yaml_values(tmp_path: Path) -> None:
    (tmp_path / "gmonlens.yaml").write_text(
        "binary: build/app\nprofiles: gmon.out\nstatic_call_graph: true\nsource_map: {/ci/src: src}\n"
    )
    s, problems = read_config_file(str(tmp_path))
    assert problems == []
    assert (s.binary, s.profiles, s.static_call_graph, s.source_map) == (
        "build/app",
        ("gmon.out",),
        True,
        (("/ci/src", "src"),),
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("binary: [1]\n", "`binary` must be a string"),
        ("profiles: {a: 1}\n", "`profiles` must be a file name or a list"),
        ("static_call_graph: maybe\n", "`static_call_graph` must be true or false"),
        ("source_map: [x]\n", "`source_map` must map"),
        ("lens_title: '{nope}'\n", "bad placeholder: unknown {nope}"),
        ("colour: red\n", "unknown setting `colour`"),
        ("- a list\n", "settings must be a mapping"),
        ("binary: [unclosed\n", "cannot read"),
    ],
    ids=["binary", "profiles", "static", "source_map", "title", "unknown", "list", "yaml-error"],
)
def test_bad_yaml_values_fall_back(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "gmonlens.yaml").write_text(text)
    s, problems = read_config_file(str(tmp_path))
    assert len(problems) == 1 and message in problems[0], problems
    assert str(tmp_path / "gmonlens.yaml") in problems[0]
    assert s.lens_title == DEFAULT_LENS_TITLE and s.binary is None


def test_client_overrides_file_and_empty_means_unset(tmp_path: Path) -> None:
    (tmp_path / "gmonlens.yaml").write_text("binary: from-file\nprofiles: [a.out]\nstatic_call_graph: true\n")
    client = {"gmonlens": {"binary": "from-client", "profiles": [], "staticCallGraph": False, "sourceMap": {},
                           "lensTitle": "{name} {calls}"}}  # fmt: skip
    s, problems = effective_settings(str(tmp_path), client)
    assert problems == []
    assert s.binary == "from-client"
    assert s.profiles == ("a.out",)  # [] is "not set"
    assert s.static_call_graph is False  # an explicit false overrides the file
    assert s.lens_title == "{name} {calls}"


def test_client_bad_values_name_the_camel_case_key(tmp_path: Path) -> None:
    s, problems = effective_settings(str(tmp_path), {"staticCallGraph": "yes", "lensTitle": 3})
    assert s == Settings()
    assert any("`staticCallGraph` must be true or false" in p for p in problems)
    assert any("`lensTitle` must be a string" in p for p in problems)


def test_client_section_accepts_both_shapes() -> None:
    assert client_section({"gmonlens": {"binary": "x"}}) == {"binary": "x"}
    assert client_section({"binary": "x"}) == {"binary": "x"}
    assert client_section(None) is None


def test_line_heat_settings(tmp_path: Path) -> None:
    (tmp_path / "gmonlens.yaml").write_text(
        "line_heat_min_percent: 5\nline_heat_label: '{routine} {seconds}'\n"
    )
    s, problems = effective_settings(str(tmp_path), {"lineHeatMinPercent": 0.5})
    assert problems == []
    assert (s.line_heat_min_percent, s.line_heat_label) == (0.5, "{routine} {seconds}")


@pytest.mark.parametrize(
    ("client", "message"),
    [
        ({"lineHeatMinPercent": "high"}, "`lineHeatMinPercent` must be a number from 0 to 100"),
        ({"lineHeatMinPercent": 101}, "`lineHeatMinPercent` must be a number from 0 to 100"),
        ({"lineHeatMinPercent": True}, "`lineHeatMinPercent` must be a number from 0 to 100"),
        ({"lineHeatLabel": "{calls}"}, "`lineHeatLabel` has a bad placeholder"),
        ({"lineHeatLabel": 3}, "`lineHeatLabel` must be a string"),
    ],
)
def test_bad_line_heat_settings_fall_back(tmp_path: Path, client: dict[str, object], message: str) -> None:
    s, problems = effective_settings(str(tmp_path), client)
    assert len(problems) == 1 and message in problems[0], problems
    assert s.line_heat_min_percent == Settings().line_heat_min_percent
    assert s.line_heat_label == Settings().line_heat_label


# Settings that once escaped validation: each killed the reload (MemoryError, 200 MB lenses,
# an attribute lookup, a NUL in a path, RecursionError). Each is now one problem, and ignored.
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("lens_title: '{percent.real}'\n", "bad placeholder: unknown {percent.real}"),
        ("lens_title: '{percent[0]}'\n", "bad placeholder: unknown {percent[0]}"),
        ("lens_title: '{percent:>99999999999}'\n", "width or precision over 100"),
        ("lens_title: '{percent:>200000000}'\n", "width or precision over 100"),
        ("lens_title: '{percent:.200000000}'\n", "width or precision over 100"),
        ("lens_title: '{percent:{name}}'\n", "unsupported format"),
        ("lens_title: '{name!r}'\n", "conversion"),
        ("lens_title: '{0}'\n", "bad placeholder: unknown {0}"),
        ('binary: "ca\\0lc"\n', "`binary` contains a NUL character"),
        ('profiles: ["a", "gm\\0on"]\n', "`profiles` contains a NUL character"),
        ("source_map: {'/a': \"b\\0\"}\n", "`source_map` contains a NUL character"),
        ("binary: " + "x" * 5000 + "\n", "longer than 4096"),
        ("binary: " + "[" * 20000 + "]" * 20000 + "\n", "cannot read"),
        ("binary:\n" + "- " * 20000 + "x\n", "cannot read"),
    ],
    ids=[
        "attr",
        "index",
        "huge-width",
        "200M-width",
        "huge-precision",
        "nested",
        "conversion",
        "positional",
        "nul-binary",
        "nul-profiles",
        "nul-map",
        "long-path",
        "deep-flow",
        "deep-block",
    ],
)
def test_settings_that_escaped_validation(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "gmonlens.yaml").write_text(text)
    s, problems = read_config_file(str(tmp_path))
    assert len(problems) == 1 and message in problems[0], problems
    assert s.lens_title == DEFAULT_LENS_TITLE and s.binary is None and s.profiles == ()


def test_good_template_widths_are_kept(tmp_path: Path) -> None:
    (tmp_path / "gmonlens.yaml").write_text("lens_title: '{percent:>5}% {calls:>8} {name:.40}'\n")
    s, problems = read_config_file(str(tmp_path))
    assert problems == [] and s.lens_title == "{percent:>5}% {calls:>8} {name:.40}"


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory", "too-large", "not-utf8"])
def test_settings_file_that_is_not_a_small_regular_text_file(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "gmonlens.yaml"
    if kind == "fifo":
        os.mkfifo(path)  # reading it would block forever: refused without reading
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")  # endless: refused after resolving the link
    elif kind == "directory":
        path.mkdir()
    elif kind == "too-large":
        path.write_bytes(b"# " + b"x" * (2 << 20) + b"\n")
    else:
        path.write_bytes(b"binary: \xff\xfe\n")
    s, problems = read_config_file(str(tmp_path))
    assert s == Settings() and len(problems) == 1 and str(path) in problems[0], problems
