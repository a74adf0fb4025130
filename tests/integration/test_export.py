"""`gmonlens export`: real C and C++ -pg programs, exported and read back by the real tools
(callgrind_annotate, KCachegrind under Xvfb, go tool pprof, Graphviz dot), with the figures held
against `gprof -b` of the same files."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from gprof_harness import AARCH64, GMONLENS, I686, PROGRAMS_DIR, Built, Program, Workshop, gmonlens_env
from xwd_png import distinct_colours, xwd_to_png

from binaries import read_image
from routine_keys import named, sum_by_name

LINES = Program("export_lines", ("export_lines.c",), flags=("-O0", f"-I{PROGRAMS_DIR}"), args=("5000",))
CYCLES = Program("cycles", ("cycles.c",), args=("40000",))
SHAPES = Program("shapes", ("shapes.cpp",), args=("5000",))
FLAT = re.compile(r"^\s*[\d.]+\s+([\d.]+)\s+([\d.]+)(?:\s+\d+\s+[\d.]+\s+[\d.]+)?\s+(\S.*)$")


def need(*tools: str) -> None:
    for t in tools:
        if shutil.which(t) is None:
            pytest.skip(f"{t} not installed (Debian: valgrind / kcachegrind xvfb / golang-go / graphviz)")


def gprof_b(built: Built, *flags: str) -> str:
    argv = [built.target.gprof, "-b", *flags, str(built.binary), str(built.gmon["out"])]
    return subprocess.run(argv, capture_output=True, check=True, text=True, cwd=built.dir).stdout


def flat_self(text: str) -> tuple[dict[str, list[str]], str]:
    """gprof's flat profile: name -> the self seconds of each row of that name as printed (a C++
    destructor's D0/D1 symbols, or two files' `static` routines, share one), and the last
    cumulative seconds."""
    out: dict[str, list[str]] = {}
    cumulative = "0.00"
    body = text.split("Call graph")[0]
    for line in body.splitlines()[5:]:
        m = FLAT.match(line)
        if m:
            cumulative = m.group(1)
            out.setdefault(m.group(3), []).append(m.group(2))
    return out, cumulative


def same_self(got: float | None, printed: list[str]) -> bool:
    """A tool that shows one figure per name (`got`, seconds) agrees with gprof's rows of that name:
    to the printed digit for a name of one routine; for a shared name, their sum within the rows'
    rounding."""
    if len(printed) == 1:
        return got is not None and "%.2f" % got == printed[0]
    return abs((got or 0.0) - sum(map(float, printed))) <= 0.005 * len(printed) + 1e-9


def export(built: Built, fmt: str, out: Path, *flags: str) -> Path:
    argv = [str(GMONLENS), "export", "--format", fmt, *flags, str(built.binary), str(built.gmon["out"])]
    proc = subprocess.run([*argv, "-o", str(out)], capture_output=True, env=gmonlens_env(), cwd=built.dir)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr == b"", proc.stderr.decode()
    return out


@pytest.fixture(scope="module")
def lines(workshop: Workshop) -> Built:
    return workshop.get(LINES)


@pytest.fixture(scope="module")
def cycles(workshop: Workshop) -> Built:
    return workshop.get(CYCLES)


@pytest.fixture(scope="module")
def shapes(workshop: Workshop) -> Built:
    return workshop.get(SHAPES)


def seconds(us: str) -> str:
    return "%.2f" % (int(us.replace(",", "")) / 1e6)


# --- callgrind ---------------------------------------------------------------------------------


def annotate(path: Path, *flags: str) -> tuple[str, dict[str, str]]:
    """callgrind_annotate's program total and per-function costs (summed over files)."""
    text = subprocess.run(
        ["callgrind_annotate", "--threshold=100", "--auto=no", *flags, str(path)],
        capture_output=True,
        check=True,
        text=True,
    ).stdout
    total = re.search(r"^\s*([\d,]+)\s.*PROGRAM TOTALS", text, re.M)
    assert total, text
    per: dict[str, int] = {}
    for m in re.finditer(r"^\s*([\d,]+)\s+(?:\([\d. %]+\)\s+)?(\S[^:\n]*):(.+)$", text, re.M):
        per[m.group(3)] = per.get(m.group(3), 0) + int(m.group(1).replace(",", ""))
    return total.group(1), {k: seconds(str(v)) for k, v in per.items()}


@pytest.fixture(scope="module")
def lines_aarch64(workshop: Workshop) -> Built:
    return workshop.get(Program(LINES.name, LINES.sources, LINES.flags, args=("1500",)), AARCH64)


@pytest.fixture(scope="module")
def lines_i686(workshop: Workshop) -> Built:
    return workshop.get(LINES, I686)


@pytest.mark.parametrize("which", ["lines", "cycles", "shapes", "lines_aarch64", "lines_i686"])
def test_callgrind_annotate_totals_equal_gprof(
    which: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    need("callgrind_annotate")
    built: Built = request.getfixturevalue(which)
    out = export(built, "callgrind", tmp_path / "callgrind.out")
    text = gprof_b(built)
    flat, cumulative = flat_self(text)
    total, per = annotate(out)
    assert seconds(total) == cumulative
    for name, selves in flat.items():
        if any(s != "0.00" for s in selves):
            assert same_self(float(per[name]) if name in per else None, selves), (name, per.get(name), selves)
    # inclusive: main's cost (self + its calls' inclusive costs) is gprof's main total
    _total, incl = annotate(out, "--inclusive=yes")
    main = re.search(r"^\[\d+\]\s+[\d.]+\s+([\d.]+)\s+([\d.]+)\s.*\bmain \[\d+\]$", text, re.M)
    assert main
    assert abs(float(incl["main"]) - (float(main.group(1)) + float(main.group(2)))) < 0.0101


@pytest.mark.parametrize("which", ["lines", "lines_aarch64", "lines_i686"])
def test_callgrind_lines_and_call_sites(which: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """Self cost lands on source lines (the inlined header loop under fi=), and the callee called
    from two lines of `twice` gets one calls= line at each call's line (call instructions decoded
    on x86-64, i686 and AArch64)."""
    lines: Built = request.getfixturevalue(which)
    runs = int(lines.program.args[0])
    out = export(lines, "callgrind", tmp_path / "callgrind.out").read_text()
    src = (PROGRAMS_DIR / "export_lines.c").read_text().splitlines()
    tags = ("SITE-1", "SITE-2", "HOT-LEAF", "ADJ-1", "ADJ-2")
    site = {tag: src.index(next(s for s in src if tag in s)) + 1 for tag in tags}
    twice_id = re.search(r"fn=\((\d+)\) twice$", out, re.M)
    assert twice_id
    twice = out.split(f"\nfn=({twice_id.group(1)})")[1].split("\nfn=")[0]
    call_lines = re.findall(r"calls=(\d+) \d+\n(\d+) \d+", twice)
    assert [int(ln) for _c, ln in call_lines] == [site["SITE-1"], site["SITE-2"]]
    assert all(int(c) == runs for c, _ln in call_lines)
    adjacent_id = re.search(r"fn=\((\d+)\) adjacent$", out, re.M)
    assert adjacent_id
    adjacent = out.split(f"\nfn=({adjacent_id.group(1)})")[1].split("\nfn=")[0]
    fn_names = dict(re.findall(r"^c?fn=\((\d+)\) (.+)$", out, re.M))
    got = re.findall(r"cfn=\((\d+)\).*\ncalls=\d+ \d+\n(\d+) ", adjacent)
    assert {fn_names[i]: int(ln) for i, ln in got} == {"tick": site["ADJ-1"], "tock": site["ADJ-2"]}, adjacent
    assert re.search(r"^fi=\(\d+\) \S*export_lines\.h$", out, re.M)
    hdr = (PROGRAMS_DIR / "export_lines.h").read_text().splitlines()
    hot_h = next(i for i, s in enumerate(hdr) if "HOT-HEADER" in s) + 1
    assert re.search(rf"^fi=\(\d+\) \S*export_lines\.h\n{hot_h} [1-9]", out, re.M)
    assert re.search(rf"^{site['HOT-LEAF']} [1-9]\d*$", out, re.M)
    assert re.search(r"^# gprof <cycle 1>: (ping, pong|pong, ping)$", out, re.M)


def test_callgrind_source_map(lines: Built, tmp_path: Path) -> None:
    out = export(lines, "callgrind", tmp_path / "cg.out", f"--source-map={PROGRAMS_DIR}=/src")
    text = out.read_text()
    assert "fl=(1) /src/export_lines.c" in text
    assert str(PROGRAMS_DIR) not in text


def test_kcachegrind_opens_it(cycles: Built, tmp_path: Path) -> None:
    """KCachegrind loads the file under Xvfb: it stays up and draws a window (screenshot kept)."""
    need("kcachegrind", "xvfb-run", "dbus-run-session")
    out = export(cycles, "callgrind", tmp_path / "callgrind.out.1")
    fb = tmp_path / "fb"
    fb.mkdir()
    cfg = tmp_path / "config"
    cfg.mkdir()
    (cfg / "kcachegrindrc").write_text("[TipOfDay]\nRunOnStart=false\n")
    script = tmp_path / "run.sh"
    script.write_text(
        'kcachegrind -qwindowgeometry 1280x800+0+0 "$1" >"$2" 2>&1 & pid=$!\n'
        "for i in $(seq 1 40); do sleep 0.5; kill -0 $pid 2>/dev/null || exit 3; "
        '[ $i -ge 12 ] && break; done\ncp "$3/Xvfb_screen0" "$4"\nkill $pid\nwait $pid\nexit 0\n'
    )
    env = {**os.environ, "XDG_CONFIG_HOME": str(cfg), "XDG_RUNTIME_DIR": str(tmp_path)}
    shot = tmp_path / "kcachegrind.xwd"
    argv = ["xvfb-run", "-a", "-s", f"-screen 0 1280x800x24 -fbdir {fb}", "dbus-run-session", "--"]
    proc = subprocess.Popen(
        [*argv, "sh", str(script), str(out), str(tmp_path / "kc.log"), str(fb), str(shot)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        proc.wait(timeout=90)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    log = (tmp_path / "kc.log").read_text(errors="replace")
    assert proc.returncode == 0, f"kcachegrind exited early: {log}"
    data = shot.read_bytes()
    png = tmp_path / "kcachegrind.png"
    png.write_bytes(xwd_to_png(data))
    print(f"KCachegrind screenshot: {png}")
    assert distinct_colours(data) > 8, f"blank screen (see {png}): {log}"
    assert "rror" not in log, log


# --- pprof -------------------------------------------------------------------------------------


def pprof_top(path: Path, *flags: str) -> tuple[list[str], dict[str, float]]:
    """go tool pprof -top: header lines and name -> flat value (rows of one name summed: pprof
    lists a C++ destructor's D0 and D1 symbols apart under one name)."""
    proc = subprocess.run(
        ["go", "tool", "pprof", "-top", "-nodefraction=0", "-nodecount=100000", *flags, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PPROF_TMPDIR": str(path.parent), "HOME": str(path.parent)},
    )
    assert proc.returncode == 0, proc.stderr
    head, rows = [], []
    for line in proc.stdout.splitlines():
        m = re.match(r"^\s*([\d.]+)(ms|s|us|)\s+[\d.]+%\s+[\d.]+%\s+[\d.]+\w*\s+[\d.]+%\s+(\S.*)$", line)
        if m:
            scale = {"ms": 1e-3, "s": 1.0, "us": 1e-6, "": 1.0}[m.group(2)]
            rows.append((m.group(3), float(m.group(1)) * scale))
        else:
            head.append(line)
    return head, sum_by_name(rows)


@pytest.mark.parametrize(
    ("which", "flags"), [("lines", ()), ("cycles", ()), ("shapes", ()), ("cycles", ("-Pspin",))]
)
def test_pprof_top_is_gprof_flat_profile(
    which: str, flags: tuple[str, ...], request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Also with a symspec: -Pspin takes spin's time out of the flat profile and its total."""
    need("go")
    built: Built = request.getfixturevalue(which)
    out = export(built, "pprof", tmp_path / "profile.pb.gz", *flags)
    assert out.read_bytes()[:2] == b"\x1f\x8b"
    flat, cumulative = flat_self(gprof_b(built, *flags))
    head, rows = pprof_top(out, "-unit=ms")
    assert any("ESTIMATE" in h for h in head), head  # the proportional split is labelled
    # each name of one routine: listed by both or neither (a shared name's rows may each round to
    # 0.00 while their sum does not)
    timed = {k for k, v in flat.items() if len(v) == 1 and v[0] != "0.00"}
    assert timed == {k for k, v in rows.items() if v >= 0.005 and len(flat.get(k, ())) < 2}
    for name, selves in flat.items():
        if any(s != "0.00" for s in selves):
            assert same_self(rows.get(name), selves), (name, rows.get(name), selves)
    assert "%.2f" % sum(rows.values()) == cumulative


def test_pprof_calls_are_gprof_call_counts(cycles: Built, tmp_path: Path) -> None:
    """Two-frame samples: a callee's flat count is every call into it (gprof: calls + recursive)."""
    need("go")
    out = export(cycles, "pprof", tmp_path / "profile.pb.gz")
    _head, rows = pprof_top(out, "-sample_index=calls")
    text = gprof_b(cycles, "-q")
    for name in ("spin", "bottom", "a", "x"):
        m = re.search(rf"^\[\d+\]\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+(\d+)(?:\+(\d+))?\s+{name}\b", text, re.M)
        assert m, name
        assert rows[name] == int(m.group(1)) + int(m.group(2) or 0), name


# --- dot ---------------------------------------------------------------------------------------


def test_dot_renders_and_prunes(cycles: Built, tmp_path: Path) -> None:
    need("dot")
    out = export(cycles, "dot", tmp_path / "graph.dot")
    svg = subprocess.run(["dot", "-Tsvg", str(out)], capture_output=True, check=True).stdout.decode()
    titles = set(re.findall(r"<text[^>]*>([a-z]+)</text>", svg))
    assert {"main", "spin", "a", "b", "c", "w", "x", "y", "z", "p", "q", "top", "l", "r", "bottom"} <= titles
    assert "cluster_cycle1" in svg
    # percentages are gprof's call-graph % time
    text = gprof_b(cycles, "-q")
    m = re.search(r"^\[\d+\]\s+([\d.]+)\s.*\btop \[\d+\]$", text, re.M)
    assert m
    mine = re.search(r"top\\n([\d.]+)%", out.read_text())
    assert mine
    assert abs(float(mine.group(1)) - float(m.group(1))) <= 0.051
    # thresholds: only the nodes at >= 50% of the time remain, and edges between them
    pruned = export(cycles, "dot", tmp_path / "pruned.dot", "--node-thres", "50", "--edge-thres=5")
    body = pruned.read_text()
    names = set(re.findall(r'label="([a-z]+)\\n', body))
    assert names == {"main", "spin"}
    subprocess.run(["dot", "-Tsvg", str(pruned)], capture_output=True, check=True)


def test_export_usage_errors(cycles: Built) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(GMONLENS), "export", *args],
            capture_output=True,
            text=True,
            env=gmonlens_env(),
            cwd=cycles.dir,
        )

    for args, msg in [
        ((str(cycles.binary),), "--format is required"),
        (("--format", "svg"), "unknown format 'svg'"),
        (("--format=dot", "--node-thres", "x"), "not a number"),
        (("--format=dot", "--json"), "report output options"),
        (("--format=callgrind", "-l"), "-l: report output options"),
        (("--format=pprof", "-A"), "-A: report output options"),
    ]:
        proc = run(*args)
        assert proc.returncode == 2 and msg in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    proc = run("--format=callgrind", str(cycles.binary), str(cycles.dir / "missing.gmon"))
    assert proc.returncode == 1 and "missing.gmon" in proc.stderr and "Traceback" not in proc.stderr
    proc = run(
        "--format=callgrind", "-o", "/nonexistent/dir/out", str(cycles.binary), str(cycles.gmon["out"])
    )
    assert proc.returncode == 1 and "/nonexistent/dir/out" in proc.stderr


@pytest.mark.parametrize("fmt", ["callgrind", "pprof", "dot"])
def test_export_imports_no_pygls(fmt: str, cycles: Built, tmp_path: Path) -> None:
    out = tmp_path / f"out.{fmt}"
    argv = ["export", "--format", fmt, str(cycles.binary), str(cycles.gmon["out"]), "-o", str(out)]
    code = (
        f"import sys; from gmonlens_cli.main import main; rc = main({argv!r}); "
        "print('PYGLS' if any(m.startswith(('pygls', 'lsprotocol')) for m in sys.modules) else 'CLEAN', rc)"
    )
    proc = subprocess.run(
        [str(GMONLENS.parent / "python"), "-c", code], capture_output=True, text=True, env=gmonlens_env()
    )
    assert proc.stdout.splitlines()[-1] == "CLEAN 0", proc.stderr
    assert out.stat().st_size > 0


def test_samples_outside_routines_keep_gprof_total(cycles: Built, tmp_path: Path) -> None:
    """Samples gprof counts in its total but credits to no routine (here: below the first routine
    of a PIE, whose histogram starts at 0 as glibc writes it) appear as one pseudo-function, so the
    export's total is gprof's."""
    from gmonlens.load.loader import load
    from gmonwriter import Hist, gnu_file

    image = read_image(str(cycles.binary))
    low, high = 0, (image.text_end + 3) & ~3
    counts = [0] * ((high - low) // 4)
    profile = load(str(cycles.binary), [str(cycles.gmon["out"])]).profile
    spin = named(profile.routines)["spin"]
    assert profile.routines[0].address >= 64, "not a PIE?"
    counts[(spin.address - low) // 4 + 1] = 7
    counts[(profile.routines[0].address - 32) // 4] = 3
    gmon = tmp_path / "gmon.synth"
    gmon.write_bytes(gnu_file([Hist(low, high, counts, 100)]))
    synth = load(str(cycles.binary), [str(gmon)]).profile
    assert synth.total_ticks == 10 and sum(r.self_ticks for r in synth.routines) == 7
    out = tmp_path / "cg.out"
    argv = [str(GMONLENS), "export", "--format=callgrind", str(cycles.binary), str(gmon), "-o", str(out)]
    subprocess.run(argv, check=True, env=gmonlens_env())
    text = out.read_text()
    assert "fn=(2) samples outside any routine\n0 30000\n" in text
    assert text.rstrip().endswith("totals: 100000")
    if shutil.which("go"):
        pb = tmp_path / "p.pb.gz"
        argv = [str(GMONLENS), "export", "--format=pprof", str(cycles.binary), str(gmon), "-o", str(pb)]
        subprocess.run(argv, check=True, env=gmonlens_env())
        _head, rows = pprof_top(pb, "-unit=s")
        assert rows == pytest.approx({"spin": 0.07, "samples outside any routine": 0.03}), rows
