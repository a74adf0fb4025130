"""`gmonlens diff` on real programs built twice (diff_programs/variants.c) and run.

Builds: base (slow_me does 8 units), base again with every address moved (-DPAD), and a "slower"
build (slow_me does 48 units, caller() no longer calls helper()). About 3 s of runtime in all.

Flakiness budget: slow_me has ~12 samples in the base and ~70 in the slower build, so z is about 6
and falls below 3 with probability ~1e-4 under the Poisson model; two runs of one build flag a
routine (|z| >= 3) with probability ~0.3% per routine and run pair (checked 40 times by hand).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from gprof_harness import GMONLENS, gmonlens_env

from routine_keys import Named, named, named_values

SOURCE = Path(__file__).parent / "diff_programs" / "variants.c"
VARIANTS = {"base": ["-DSLOW=8"], "padded": ["-DSLOW=8", "-DPAD"], "slower": ["-DSLOW=48", "-DNOCALL"]}


@dataclass(frozen=True)
class Runs:
    root: Path

    def binary(self, variant: str) -> str:
        return str(self.root / variant)

    def profile(self, variant: str, n: int = 1) -> str:
        return str(self.root / f"{variant}.gmon.{n}")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, profile_run: int) -> Iterator[Runs]:
    """The variants built and run (again for each independent run: --profile-runs)."""
    gcc, gprof = shutil.which("gcc"), shutil.which("gprof")
    if gcc is None or gprof is None:
        pytest.skip("gcc and gprof (GNU binutils) are needed")
    root = tmp_path_factory.mktemp("diff")
    for name, flags in VARIANTS.items():
        subprocess.run([gcc, "-pg", "-g", "-O1", *flags, str(SOURCE), "-o", str(root / name)], check=True)
    for name, n in (("base", 1), ("base", 2), ("padded", 1), ("slower", 1)):
        work = root / f"run-{name}-{n}"
        work.mkdir()
        subprocess.run([str(root / name)], cwd=work, check=True, timeout=60)
        (work / "gmon.out").rename(root / f"{name}.gmon.{n}")
    yield Runs(root)


def diff(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(GMONLENS), "diff", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=gmonlens_env(),
        timeout=120,
    )


def diff_json(*args: str, cwd: Path) -> dict[str, Any]:
    out = diff("--json", *args, cwd=cwd)
    assert out.returncode == 0, out.stderr
    data: dict[str, Any] = json.loads(out.stdout)
    assert data["schema"] == "gmonlens-diff/1"
    return data


def rows(data: dict[str, Any]) -> Named[dict[str, Any]]:
    """The diff's rows by display name (variants.c's names are its own; a shared one fails)."""
    return named(data["routines"])


def test_slower_routine_is_a_regression_beyond_noise(runs: Runs) -> None:
    data = diff_json(
        runs.binary("base"),
        runs.profile("base"),
        "--",
        runs.binary("slower"),
        runs.profile("slower"),
        cwd=runs.root,
    )
    by = rows(data)
    slow = by["slow_me"]
    assert slow["self"]["verdict"] == "up", slow
    assert slow["self"]["z"] >= 3
    assert data["routines"][0]["display_name"] == "slow_me"  # largest change first
    # the removed call: exact call counts, matched although helper() lost all its time
    assert by["helper"]["before"]["calls"] == 40 and by["helper"]["after"]["calls"] == 0
    assert by["helper"]["status"] == "matched"
    assert by["hot"]["self"]["verdict"] == "noise"
    regressions = {
        r["display_name"] for r in data["routines"] if "up" in (r["self"]["verdict"], r["total"]["verdict"])
    }
    assert regressions <= {"slow_me", "main"}


def test_fail_over_exit_status_and_names(runs: Runs) -> None:
    args = (runs.binary("base"), runs.profile("base"), "--", runs.binary("slower"), runs.profile("slower"))
    out = diff(*args, "--fail-over", "50", cwd=runs.root)
    assert out.returncode == 3, out.stderr
    assert "slow_me: self" in out.stderr
    assert "hot" not in out.stderr
    assert "slow_me" in out.stdout.splitlines()[7]  # the table's first row
    # a growth below the limit does not fail
    assert diff(*args, "--fail-over", "100000", cwd=runs.root).returncode == 0


def test_same_build_twice_no_regression(runs: Runs) -> None:
    data = diff_json(runs.binary("base"), runs.profile("base", 1), runs.profile("base", 2), cwd=runs.root)
    changed = [
        r["display_name"]
        for r in data["routines"]
        if {r["self"]["verdict"], r["total"]["verdict"]} != {"noise"}
    ]
    assert changed == [], data
    out = diff(
        "--fail-over",
        "0",
        runs.binary("base"),
        runs.profile("base", 1),
        runs.profile("base", 2),
        cwd=runs.root,
    )
    assert out.returncode == 0, out.stderr


def test_matching_survives_moved_addresses(runs: Runs) -> None:
    data = diff_json(
        runs.binary("base"),
        runs.profile("base"),
        "--",
        runs.binary("padded"),
        runs.profile("padded"),
        cwd=runs.root,
    )
    by = rows(data)
    assert by["pad_me"]["status"] == "new"
    for name in ("hot", "slow_me", "helper", "caller", "main", "tiny"):
        if name in by:
            assert by[name]["status"] == "matched", by[name]
            assert by[name]["before"]["calls"] == by[name]["after"]["calls"]
    assert {"hot", "slow_me", "helper", "caller", "main"} <= by.keys()
    moved = subprocess.run(["nm", runs.binary("padded")], capture_output=True, text=True).stdout
    orig = subprocess.run(["nm", runs.binary("base")], capture_output=True, text=True).stdout
    addr = lambda text: re.search(r"^([0-9a-f]+) T hot$", text, re.M).group(1)  # type: ignore[union-attr]  # noqa: E731
    assert addr(moved) != addr(orig)


_FLAT = re.compile(r"^\s*[\d.]+\s+[\d.]+\s+([\d.]+)\s+(?:(\d+)\s+[\d.]+\s+[\d.]+\s+)?(\S+)$")
_PRIMARY = re.compile(r"^\[\d+\]\s+[\d.]+\s+([\d.]+)\s+([\d.]+)\s+(?:\S+\s+)?(\S+) \[\d+\]$")


def gprof_figures(binary: str, profile: str) -> tuple[Named[tuple[str, int]], Named[tuple[str, str]]]:
    """gprof's flat rows (name -> self, calls) and call-graph entries (name -> self, children); a
    name several routines share fails when looked up."""
    gprof = shutil.which("gprof")
    assert gprof
    text = subprocess.run([gprof, "-b", binary, profile], capture_output=True, text=True, check=True).stdout
    flat: list[tuple[str, tuple[str, int]]] = []
    graph: list[tuple[str, tuple[str, str]]] = []
    for line in text.splitlines():
        if (m := _FLAT.match(line)) is not None:
            flat.append((m.group(3), (m.group(1), int(m.group(2) or 0))))
        elif (m := _PRIMARY.match(line)) is not None:
            graph.append((m.group(3), (m.group(1), m.group(2))))
    assert flat and graph, text
    return named_values(flat), named_values(graph)


@pytest.mark.parametrize("other", ["slower", "padded"])
def test_each_side_equals_gprof(runs: Runs, other: str) -> None:
    data = diff_json(
        runs.binary("base"),
        runs.profile("base"),
        "--",
        runs.binary(other),
        runs.profile(other),
        cwd=runs.root,
    )
    for side, variant in (("before", "base"), ("after", other)):
        flat, graph = gprof_figures(runs.binary(variant), runs.profile(variant))
        seen = set()
        for r in data["routines"]:
            fig = r[side]
            if fig is None or r["display_name"] not in flat:
                continue
            seen.add(r["display_name"])
            assert (f"{fig['self_seconds']:.2f}", fig["calls"]) == flat[r["display_name"]], (side, r)
            if r["display_name"] in graph:
                assert f"{fig['children_seconds']:.2f}" == graph[r["display_name"]][1], (side, r)
        assert seen == set(flat), (side, seen, flat)
    assert (
        f"{data['base']['total_seconds']:.2f}"
        in subprocess.run(
            ["gprof", "-b", runs.binary("base"), runs.profile("base")], capture_output=True, text=True
        ).stdout
    )


def test_symspec_filters_like_report(runs: Runs) -> None:
    args = (runs.binary("base"), runs.profile("base"), "--", runs.binary("slower"), runs.profile("slower"))
    assert set(rows(diff_json("-phot", *args, cwd=runs.root))) == {"hot"}
    assert "slow_me" not in rows(diff_json("-Pslow_me", "-Qslow_me", *args, cwd=runs.root))
    # -E slow_me: its time no longer propagates to main's total, as in gprof's report
    assert rows(diff_json(*args, cwd=runs.root))["main"]["total"]["verdict"] == "up"
    assert rows(diff_json("-E", "slow_me", *args, cwd=runs.root))["main"]["total"]["verdict"] != "up"


def test_text_table_and_bad_input(runs: Runs) -> None:
    out = diff(
        runs.binary("base"),
        runs.profile("base"),
        "--",
        runs.binary("padded"),
        runs.profile("padded"),
        cwd=runs.root,
    )
    assert out.returncode == 0, out.stderr
    assert "pad_me (new)" in out.stdout
    assert "0.01 s/sample" in out.stdout
    bad = runs.root / "not-a-profile"
    bad.write_bytes(b"garbage\n" * 3)
    out = diff(runs.binary("base"), runs.profile("base"), str(bad), cwd=runs.root)
    assert out.returncode == 1
    assert len(out.stderr.splitlines()) == 1 and str(bad) in out.stderr
    out = diff(runs.binary("base"), runs.profile("base"), cwd=runs.root)
    assert out.returncode == 2 and "need" in out.stderr
    out = diff(
        "--fail-over", "x", runs.binary("base"), runs.profile("base"), runs.profile("base"), cwd=runs.root
    )
    assert out.returncode == 2 and "--fail-over" in out.stderr


def test_diff_imports_no_pygls(runs: Runs) -> None:
    code = (
        "import sys; from gmonlens_cli.main import main; "
        f"rc = main(['diff', {runs.binary('base')!r}, {runs.profile('base', 1)!r}, {runs.profile('base', 2)!r}]); "
        "sys.stdout.flush(); print('PYGLS' if any(m.startswith(('pygls', 'lsprotocol')) for m in sys.modules) else 'CLEAN', rc)"
    )
    out = subprocess.run(
        [str(GMONLENS.parent / "python"), "-c", code], capture_output=True, text=True, env=gmonlens_env()
    )
    assert out.stdout.splitlines()[-1] == "CLEAN 0", out.stderr


PROGRAMS = Path(__file__).parent / "programs"
PAD_C = "int pad_fn(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * 3 + (s >> 2); return s; }\n"


def _relinked(tmp: Path, compiler: str, sources: list[str], args: list[str]) -> tuple[str, str, str, str]:
    """Build `sources` twice (the second time linked after a padding object, files reversed: every
    address moves), run each once; returns (binary1, profile1, binary2, profile2)."""
    tool = shutil.which(compiler)
    if tool is None or shutil.which("gprof") is None:
        pytest.skip(f"{compiler} and gprof are needed")
    (tmp / "pad.c").write_text(PAD_C)
    subprocess.run(
        [tool, "-pg", "-g", "-c", "-x", "c", str(tmp / "pad.c"), "-o", str(tmp / "pad.o")], check=True
    )
    paths = [str(PROGRAMS / s) for s in sources]
    out = []
    for n, objs in ((1, paths), (2, [str(tmp / "pad.o"), *reversed(paths)])):
        binary = tmp / f"prog{n}"
        subprocess.run([tool, "-pg", "-g", *objs, "-o", str(binary)], check=True)
        run = tmp / f"run{n}"
        run.mkdir()
        subprocess.run([str(binary), *args], cwd=run, check=True, capture_output=True, timeout=60)
        out += [str(binary), str(run / "gmon.out")]
    return out[0], out[1], out[2], out[3]


def test_statics_matched_by_file_across_relink(tmp_path: Path) -> None:
    files = ["statics_main.c", "statics_s1.c", "statics_s2.c", "statics_s3.c"]
    b1, p1, b2, p2 = _relinked(tmp_path, "gcc", files, ["100000"])
    data = diff_json(b1, p1, "--", b2, p2, cwd=tmp_path)
    statics = [r for r in data["routines"] if r["display_name"] in ("helper", "work")]
    assert len(statics) >= 6, data["routines"]
    keys = [(r["display_name"], Path(r["file"]).name) for r in statics]
    assert len(keys) == len(set(keys))  # one row per (name, file): matched by file, not merged
    for r in statics:
        assert r["status"] == "matched" and r["before"]["calls"] == r["after"]["calls"], r
    assert "pad_fn" not in rows(data)  # never called: no figures on either side
    text = diff(b1, p1, "--", b2, p2, cwd=tmp_path).stdout
    assert "helper [statics_s1.c]" in text and "helper [statics_s2.c]" in text


def test_cxx_matched_by_mangled_name_across_relink(tmp_path: Path) -> None:
    b1, p1, b2, p2 = _relinked(tmp_path, "g++", ["shapes.cpp"], ["2000"])
    data = diff_json(b1, p1, "--", b2, p2, cwd=tmp_path)
    routines = [r for r in data["routines"] if r["before"] and r["after"]]
    assert any(r["name"].startswith("_Z") for r in routines)
    names = [r["name"] for r in data["routines"]]
    assert len(names) == len(set(names))  # overloads and templates stay apart
    for r in data["routines"]:
        assert r["status"] == "matched", r
        assert r["before"]["calls"] == r["after"]["calls"], r


def test_different_sample_rates_are_converted(runs: Runs, tmp_path: Path) -> None:
    """The same samples declared at 1000 Hz: a tenth of the seconds, compared in seconds, not refused."""
    data = bytearray(Path(runs.profile("base")).read_bytes())
    assert data[:4] == b"gmon" and data[20] == 0  # GNU format, first record a histogram
    assert int.from_bytes(data[41:45], "little") == 100  # its prof_rate (x86-64 header layout)
    data[41:45] = (1000).to_bytes(4, "little")
    fast = tmp_path / "gmon.1000hz"
    fast.write_bytes(bytes(data))
    out = diff_json(runs.binary("base"), runs.profile("base"), str(fast), cwd=runs.root)
    assert out["base"]["sample_period"] == 0.01 and out["new"]["sample_period"] == 0.001
    assert abs(out["new"]["total_seconds"] - out["base"]["total_seconds"] / 10) < 1e-9
    slow = rows(out)["slow_me"]
    assert abs(slow["after"]["self_seconds"] - slow["before"]["self_seconds"] / 10) < 1e-9
    # 10x less time: beyond noise once the base has 12 samples or more (|z| = 0.895 sqrt(n) >= 3);
    # a run starved of CPU may give fewer, and then "noise" is the right verdict
    ticks = round(slow["before"]["self_seconds"] / 0.01)
    assert slow["self"]["verdict"] == ("down" if ticks >= 12 else "noise"), ticks
