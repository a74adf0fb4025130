"""The real-program tier: third-party programs and the small fixtures, built at test time, checked
with no configuration through the real server. Builds are made once per session (and cached on
disk by their inputs, see programs.py); each program is run once per session (once per
independent run under `--profile-runs N`: tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import programs
from .zerocheck import Oracle, gprof_oracle

DISASM = Path(__file__).parent / "test_real_disasm.py"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.realprogs)
            item.add_marker(pytest.mark.slow)  # builds third-party programs (minutes, cached)
    # the listings' tests last (in each run): by then gprof's -l, started in the background when
    # their programs were built, has had the other core
    items.sort(key=lambda i: (_run_of(i), Path(str(i.fspath)) == DISASM))


def _run_of(item: pytest.Item) -> int:
    callspec = getattr(item, "callspec", None)
    return int(callspec.params.get("profile_run", 0)) if callspec else 0


def _lines_later(request: pytest.FixtureRequest, prog: programs.RealProgram) -> None:
    """Start gprof's `-l` on `prog` in the background when this session lists its instructions."""
    if any(Path(str(i.fspath)) == DISASM for i in request.session.items):
        programs.gprof_later(prog, *programs.GPROF_LINES)


@pytest.fixture(autouse=True)
def _each_run(profile_run: int) -> int:
    """Every test of the tier reads the programs' run `profile_run` (parametrized under
    --profile-runs N, except tests marked `unsampled`)."""
    return profile_run


@pytest.fixture(scope="session")
def sqlite_prog(profile_run: int, request: pytest.FixtureRequest) -> tuple[programs.RealProgram, Oracle]:
    programs.need("gcc", "gprof")
    prog = programs.sqlite(run=profile_run)
    _lines_later(request, prog)
    return prog, gprof_oracle("gprof", prog.binary, prog.gmon)


@pytest.fixture(scope="session")
def qjs_prog(profile_run: int, request: pytest.FixtureRequest) -> tuple[programs.RealProgram, Oracle]:
    programs.need("gcc", "gprof")
    prog = programs.quickjs_zstd_lz4(run=profile_run)
    _lines_later(request, prog)
    return prog, gprof_oracle("gprof", prog.binary, prog.gmon)


@pytest.fixture(scope="session")
def leveldb_prog(profile_run: int) -> tuple[programs.RealProgram, Oracle]:
    programs.need("g++", "gprof", "npm")
    prog = programs.leveldb_snappy(run=profile_run)
    return prog, gprof_oracle("gprof", prog.binary, prog.gmon)


@pytest.fixture(scope="session")
def leveldb_o0(profile_run: int) -> programs.RealProgram:
    programs.need("g++", "gprof", "npm")
    return programs.leveldb_snappy("-O0", run=profile_run)


@pytest.fixture(scope="session")
def libsass_prog(profile_run: int, request: pytest.FixtureRequest) -> tuple[programs.RealProgram, Oracle]:
    programs.need("g++", "gprof")
    prog = programs.libsass(run=profile_run)
    _lines_later(request, prog)
    return prog, gprof_oracle("gprof", prog.binary, prog.gmon)


@pytest.fixture(scope="session")
def jq_prog(profile_run: int) -> tuple[programs.RealProgram, Oracle]:
    programs.need("gcc", "gprof", "make")
    prog = programs.jq(run=profile_run)
    return prog, gprof_oracle("gprof", prog.binary, prog.gmon)


@pytest.fixture(scope="session")
def unrelated_exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Another program built with -pg -g (symbols, a fitting shape of its own)."""
    programs.need("gcc")
    d = tmp_path_factory.mktemp("unrelated")
    (d / "other.c").write_text(
        "#include <stdio.h>\nstatic long f(long n) { return n < 2 ? n : f(n - 1) + f(n - 2); }\n"
        'int main(void) { printf("%ld\\n", f(25)); return 0; }\n'
    )
    import subprocess

    subprocess.run(["gcc", "-pg", "-g", "-O2", "-o", str(d / "other"), str(d / "other.c")], check=True)
    return d / "other"
