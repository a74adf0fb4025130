"""SourceMapper: source_map prefixes, then the longest common path suffix inside the workspace."""

from __future__ import annotations

from pathlib import Path

from gmonlens.load.sourcemap import SourceMapper


def make(root: Path, *files: str) -> None:
    for f in files:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("x")


def test_longest_common_suffix_wins(tmp_path: Path) -> None:
    make(tmp_path, "src/util.c", "lib/util.c", "lib/net/util.c", "main.c")
    m = SourceMapper(str(tmp_path))
    assert m.resolve("/ci/build/project/lib/net/util.c") == str(tmp_path / "lib/net/util.c")
    assert m.resolve("/home/x/src/util.c") == str(tmp_path / "src/util.c")
    assert m.resolve("/somewhere/main.c") == str(tmp_path / "main.c")
    assert m.resolve("/nowhere/missing.c") is None


def test_tie_goes_to_shortest_then_alphabetical(tmp_path: Path) -> None:
    make(tmp_path, "b/x.c", "a/x.c", "deep/er/x.c")
    assert SourceMapper(str(tmp_path)).resolve("/old/x.c") == str(tmp_path / "a/x.c")


def test_source_map_prefix_first(tmp_path: Path) -> None:
    make(tmp_path, "code/util.c", "other/util.c")
    m = SourceMapper(str(tmp_path), {"/ci/src": "other"})
    assert m.resolve("/ci/src/util.c") == str(tmp_path / "other/util.c")
    # a prefix matches whole components only
    assert SourceMapper(str(tmp_path), {"/ci/sr": "other"}).resolve("/ci/src/util.c") == str(
        tmp_path / "code/util.c"
    )


def test_existing_paths(tmp_path: Path) -> None:
    make(tmp_path, "inside.c")
    m = SourceMapper(str(tmp_path / "ws"))
    (tmp_path / "ws").mkdir()
    # outside the workspace but existing (a system header): kept as is
    assert m.resolve(str(tmp_path / "inside.c")) == str(tmp_path / "inside.c")
    assert m.inside(str(tmp_path / "ws" / "a.c")) and not m.inside(str(tmp_path / "inside.c"))


def test_hidden_and_node_modules_skipped(tmp_path: Path) -> None:
    make(tmp_path, ".git/x.c", "node_modules/y.c")
    m = SourceMapper(str(tmp_path))
    assert m.resolve("/a/x.c") is None and m.resolve("/a/y.c") is None
