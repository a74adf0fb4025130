"""Settings: gmonlens.yaml (snake_case) under the client's camelCase section; bad values fall back."""

from __future__ import annotations

from pathlib import Path

import pytest

from gmonlens_lsp.settings import (
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
        ("lens_title: '{nope}'\n", "bad placeholder"),
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
