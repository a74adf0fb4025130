"""Benchmarks: GNU gprof and ``gmonlens report`` side by side, in one run (``make bench``).

Prepares (once, cached under bench/work/) the SQLite program and the generated 20,000-routine
program, then for each case runs its commands interleaved (the order rotates per repetition, after
one untimed warm-up run each), and reports per command the median wall time, the median CPU time
(user + system) and the peak resident set size, measured per child with ``os.wait4``.
gmonlens runs with ``XDG_CACHE_HOME`` under bench/work/cache: "cold" empties it before every run
(a first run on a new binary), "warm" keeps what the warm-up run stored.

Cases:
  a   SQLite amalgamation built with -pg -g -O2: ``gprof -b`` vs ``gmonlens report -b`` (cold, warm)
  b   generated program, 20,000 routines in 200 files, one huge cycle, -O0: the same
  b2  the same program built with -O2 (inlining, clones): the same
  c   generated program (-O0): ``gmonlens report -b`` vs ``gmonlens report -b -c``, cold (and
      ``gprof -b -c`` for information); c-warm: the same pair with a warm cache

Targets (issues 2 and 3): a within 3x of gprof's wall time; b faster than gprof and under 300 MB
peak; c at most 1.5x. The outputs of gprof and gmonlens are compared byte for byte.
Writes bench/results.md. Exit status 0 unless ``--strict`` and a target or an identity check fails.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
OUT_DIR = BENCH_DIR / "work" / "out"
sys.path.insert(0, str(BENCH_DIR))

import gen_program  # noqa: E402
import sqlite_prog  # noqa: E402

GMONLENS = ROOT / ".venv" / "bin" / "gmonlens"


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


LOAD = [_load()]


@dataclass
class Sample:
    wall: float  # seconds
    cpu: float  # user + system seconds
    rss_mb: float  # peak resident set size, MiB


@dataclass
class Command:
    label: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    cold_cache: Path | None = None  # emptied before every run (the disk cache of a first run)
    samples: list[Sample] = field(default_factory=list)
    output: bytes = b""
    status: int = 0

    def median(self, attr: str) -> float:
        return statistics.median(getattr(s, attr) for s in self.samples)

    def peak_rss(self) -> float:
        return max(s.rss_mb for s in self.samples)


@dataclass
class Case:
    key: str
    title: str
    base: Command
    other: Command  # the command the target is about
    compare_outputs: bool
    target: str  # human-readable
    max_ratio: float  # on median wall time, other/base
    max_rss_mb: float | None = None
    extra: list[Command] = field(default_factory=list)  # reported against base, no target

    def commands(self) -> list[Command]:
        return [self.base, self.other, *self.extra]

    def ratio(self, attr: str = "wall", cmd: Command | None = None) -> float:
        return (cmd or self.other).median(attr) / self.base.median(attr)

    def failed(self) -> bool:
        return any(c.status != 0 for c in self.commands())

    def meets(self, attr: str = "wall") -> bool:
        if self.failed():
            return False
        ok = self.ratio(attr) <= self.max_ratio
        if self.max_rss_mb is not None:
            ok = ok and self.other.peak_rss() < self.max_rss_mb
        return ok

    def verdict(self) -> str:
        if self.failed():
            bad = next(c for c in self.commands() if c.status)
            return f"**{bad.label} failed (exit {bad.status})**"
        return "/".join("yes" if self.meets(attr) else "**no**" for attr in ("wall", "cpu"))

    def differing(self) -> list[Command]:
        """Commands whose output differs from the base command's (when outputs are compared)."""
        if not self.compare_outputs:
            return []
        return [c for c in self.commands()[1:] if c.status != 0 or c.output != self.base.output]

    def identical(self) -> bool:
        return self.base.status == 0 and not self.differing()


def measure(cmd: Command, cwd: Path, out_path: Path | None = None) -> tuple[Sample, bytes, int]:
    """Run ``cmd`` once; its stdout goes to ``out_path`` (or is discarded) and is returned."""
    if cmd.cold_cache is not None:
        shutil.rmtree(cmd.cold_cache, ignore_errors=True)
    env = {**os.environ, **cmd.env}
    with open(out_path or os.devnull, "wb") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd.argv, cwd=cwd, stdout=out, stderr=subprocess.PIPE, env=env)
        assert proc.stderr is not None
        err = proc.stderr.read()
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.stderr.write(
            f"{' '.join(cmd.argv)}: exit {proc.returncode}\n{err.decode(errors='replace')[-2000:]}"
        )
    data = out_path.read_bytes() if out_path else b""
    return Sample(wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0), data, proc.returncode


def run_case(case: Case, cwd: Path, reps: int) -> None:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    cmds = case.commands()
    for i, cmd in enumerate(cmds):  # warm-up (fills the warm cache), also keeps the outputs
        _, cmd.output, cmd.status = measure(cmd, cwd, OUT_DIR / f"{case.key}-{i}.txt")
    for rep in range(reps):
        k = rep % len(cmds)  # rotate the order: no command always runs first
        for cmd in cmds[k:] + cmds[:k]:
            sample, _, _ = measure(cmd, cwd)
            cmd.samples.append(sample)
    print(
        f"  {case.key}: "
        + ", ".join(f"{c.label} {c.median('wall'):.3f} s (CPU {c.median('cpu'):.3f})" for c in cmds)
        + f"; ratio {case.ratio():.2f}"
        + (f", identical: {case.identical()}" if case.compare_outputs else ""),
        flush=True,
    )


def first_difference(a: bytes, b: bytes) -> str:
    la, lb = a.decode(errors="replace").splitlines(), b.decode(errors="replace").splitlines()
    for i, (x, y) in enumerate(zip(la, lb, strict=False)):
        if x != y:
            return f"line {i + 1}: gprof {x!r} / gmonlens {y!r}"
    return f"line counts {len(la)} / {len(lb)}"


def gmon_facts(exe: Path, gmon: Path, gprof_out: bytes) -> str:
    text_syms = subprocess.run(["nm", "--defined-only", str(exe)], capture_output=True, text=True).stdout
    n_text = sum(1 for line in text_syms.splitlines() if line[17:19] in ("T ", "t ", "W "))
    entries = sum(1 for line in gprof_out.decode(errors="replace").splitlines() if line.startswith("["))
    return (
        f"{n_text} text symbols, {entries} call-graph entries, gmon.out {gmon.stat().st_size / 1e6:.1f} MB, "
        f"gprof output {len(gprof_out) / 1e6:.1f} MB"
    )


def markdown(cases: list[Case], facts: dict[str, str], reps: int) -> str:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    gprof_v = subprocess.run(["gprof", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    lines = [
        "# Benchmark results",
        "",
        f"`make bench` ({Path(__file__).name}), {datetime.date.today().isoformat()}, commit "
        f"{commit.stdout.strip() or '?'}; {os.cpu_count()} CPUs ({cpu}), Python {platform.python_version()}, "
        f"{gprof_v}. Median of {reps} interleaved runs after one warm-up each; CPU = user + system; "
        "RSS = peak resident set size of the process. Ratio = second / first command, on wall time "
        "(and CPU time). The machine may be shared: the CPU ratio is the steadier figure. "
        f"Load average before/after: {LOAD[0]} / {_load()}.",
        "",
        "| case | command | wall s | CPU s | peak RSS MB | ratio wall (CPU) | target | met (wall/CPU) | output identical |",
        "| --- | --- | ---: | ---: | ---: | --- | --- | --- | --- |",
    ]
    for c in cases:
        ident = ("yes" if c.identical() else "**no**") if c.compare_outputs else "n/a"
        for i, cmd in enumerate(c.commands()):
            row = f"| {c.key if i == 0 else ''} | {cmd.label}: `{' '.join(_short(a) for a in cmd.argv)}` | "
            row += f"{cmd.median('wall'):.3f} | {cmd.median('cpu'):.3f} | {cmd.peak_rss():.0f} | "
            if i == 0:
                row += "| | | |"
            elif i == 1:
                row += f"{c.ratio():.2f} ({c.ratio('cpu'):.2f}) | {c.target} | {c.verdict()} | {ident} |"
            else:
                row += f"{c.ratio('wall', cmd):.2f} ({c.ratio('cpu', cmd):.2f}) | (for information) | | |"
            lines.append(row)
    lines += ["", "Programs:", ""]
    for c in cases:
        lines.append(f"- **{c.key}**: {c.title}. {facts.get(c.key, '')}")
    diffs = [(c, d) for c in cases for d in c.differing()]
    if diffs:
        lines += ["", "Output differences (first differing line):", ""]
        lines += [f"- {c.key}, {d.label}: {first_difference(c.base.output, d.output)}" for c, d in diffs]
    return "\n".join(lines) + "\n"


def _short(arg: str) -> str:
    p = Path(arg)
    return p.name if p.is_absolute() else arg


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="gprof vs gmonlens report benchmarks")
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions per command (default 5)")
    ap.add_argument(
        "--cases", default="a,b,b2,c", help="comma-separated subset of a,b,b2,c (c includes c-warm)"
    )
    ap.add_argument(
        "--results",
        type=Path,
        default=None,
        help="markdown output (default: bench/results.md for a full run, bench/work/results-partial.md otherwise)",
    )
    ap.add_argument("--strict", action="store_true", help="exit 1 if a target or identity check fails")
    a = ap.parse_args(argv)
    wanted = set(a.cases.split(","))
    if a.results is None:
        full = wanted >= {"a", "b", "b2", "c"}
        a.results = BENCH_DIR / "results.md" if full else BENCH_DIR / "work" / "results-partial.md"
    missing = [t for t in ("gcc", "gprof", "nm") if shutil.which(t) is None]
    if missing:
        print(f"bench needs {', '.join(missing)} (Debian: gcc, binutils)", file=sys.stderr)
        return 2
    if not GMONLENS.exists():
        print(f"{GMONLENS} not found: run `make install` first", file=sys.stderr)
        return 2
    # as `make install` leaves it: bytecode for the current sources (a PYTHONDONTWRITEBYTECODE
    # environment would otherwise compile every module at every run)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "analysis"), str(ROOT / "server")])

    cases: list[tuple[Case, Path]] = []
    facts: dict[str, str] = {}
    gl = [str(GMONLENS), "report", "-b"]
    cache_root = BENCH_DIR / "work" / "cache"

    def gmonlens(label: str, args: list[str], cache: str) -> Command:
        """`gmonlens report` with its disk cache in bench/work/cache/NAME; "cold*" caches are
        emptied before every run (what a first run pays), others are warmed by the warm-up run."""
        d = cache_root / cache
        return Command(
            label, [*gl, *args], {"XDG_CACHE_HOME": str(d)}, d if cache.startswith("cold") else None
        )

    def pair(key: str, title: str, args: list[str], target: str, max_ratio: float, rss: float | None) -> Case:
        return Case(
            key,
            title,
            Command("gprof", ["gprof", "-b", *args]),
            gmonlens("gmonlens, cold cache", args, "cold"),
            True,
            target,
            max_ratio,
            rss,
            [gmonlens("gmonlens, warm cache", args, f"warm-{key}")],
        )

    if "a" in wanted:
        print("preparing SQLite (fetch, build -O2, run workload)...", flush=True)
        try:
            exe = sqlite_prog.build(sqlite_prog.fetch(), opt="-O2")
            gmon = sqlite_prog.run_workload(exe)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
            print(f"skipping case a (SQLite): {e}", file=sys.stderr)
        else:
            title = "SQLite 3.53 amalgamation + bench/sqlite_workload.c, gcc -pg -g -O2"
            cases.append((pair("a", title, [exe.name, gmon.name], "<= 3x gprof", 3.0, None), exe.parent))
    if wanted & {"b", "b2", "c"}:
        print("preparing the generated program (generate, build, run)...", flush=True)
        src = gen_program.generate(gen_program.WORK_DIR / "gen20000x200")
    for key, opt in (("b", "-O0"), ("b2", "-O2")):
        if key in wanted or (key == "b" and "c" in wanted):
            exe = gen_program.build(src, opt=opt)
            gmon = gen_program.run_program(exe)
            if key in wanted:
                title = f"generated: 20,000 routines in 200 files, one huge cycle, gcc -pg -g {opt}"
                case = pair(key, title, [exe.name, gmon.name], "< 1x gprof, < 300 MB", 1.0, 300.0)
                cases.append((case, exe.parent))
    if "c" in wanted:
        exe = src / "build-O0" / "prog"
        args = [exe.name, "gmon.out"]
        title = "generated program (-O0), static call graph: gmonlens without and with -c"
        case = Case(
            "c",
            f"{title}, cold caches (gprof -c, which finds only forward calls on x86-64, for information)",
            gmonlens("gmonlens, cold cache", args, "cold"),
            gmonlens("gmonlens -c, cold cache", ["-c", *args], "cold"),
            False,
            "<= 1.5x without -c",
            1.5,
            None,
            [Command("gprof -c", ["gprof", "-b", "-c", *args])],
        )
        cases.append((case, exe.parent))
        case = Case(
            "c-warm",
            f"{title}, warm caches",
            gmonlens("gmonlens, warm cache", args, "warm-c"),
            gmonlens("gmonlens -c, warm cache", ["-c", *args], "warm-c"),
            False,
            "<= 1.5x without -c",
            1.5,
        )
        cases.append((case, exe.parent))

    print(f"running {len(cases)} case(s), {a.reps} repetitions each...", flush=True)
    LOAD[0] = _load()
    for case, cwd in cases:
        run_case(case, cwd, a.reps)
        if case.compare_outputs:
            facts[case.key] = gmon_facts(cwd / case.base.argv[-2], cwd / case.base.argv[-1], case.base.output)
    only = [c for c, _ in cases]
    text = markdown(only, facts, a.reps)
    a.results.parent.mkdir(parents=True, exist_ok=True)
    a.results.write_text(text)
    print()
    print(text)
    failed = [c.key for c in only if not c.meets("wall") or (c.compare_outputs and not c.identical())]
    if failed:
        print(f"not met: {', '.join(failed)}")
    return 1 if a.strict and failed else 0


if __name__ == "__main__":
    sys.exit(main())
