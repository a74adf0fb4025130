"""Shared test set-up: makes `tests/gmonwriter.py` importable, locates the project's tools, and
runs the tiers that read sampled profiles against several independent runs on request
(`--profile-runs N`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def gmonlens_exe() -> Path:
    """The installed `gmonlens` console script (`make install` creates it)."""
    exe = ROOT / ".venv" / "bin" / "gmonlens"
    if not exe.exists():
        pytest.skip(f"{exe} missing: run `make install`")
    return exe


# --- independent runs of the profiled programs ------------------------------------------------------
# A sampled profile differs from run to run (which routine, which copy of a routine, gets the
# samples; ties in gprof's orderings; figures on a rounding edge). A test that depends on one must
# hold for every run. `pytest --profile-runs N` (or $GMONLENS_PROFILE_RUNS=N) runs each test of the
# tiers whose conftest asks for `profile_run` (integration, realprogs) N times, each against its
# own run of every program (builds are shared): test ids gain `run0`..`run{N-1}`. Tests whose
# result does not depend on a run (synthesized profiles, DWARF only) carry the `unsampled` mark and
# run once.


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--profile-runs",
        type=int,
        default=None,
        metavar="N",
        help="run the tests that read a sampled profile against N independent runs of each program "
        "(integration and real-program tiers; default $GMONLENS_PROFILE_RUNS or 1)",
    )


def profile_runs(config: pytest.Config) -> int:
    """How many independent runs each sampled-profile test reads (at least 1)."""
    n = config.getoption("--profile-runs") or int(os.environ.get("GMONLENS_PROFILE_RUNS") or 1)
    return max(1, n)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    n = profile_runs(metafunc.config)
    if (
        n > 1
        and "profile_run" in metafunc.fixturenames
        and not metafunc.definition.get_closest_marker("unsampled")
    ):
        ids = [f"run{k}" for k in range(n)]
        metafunc.parametrize("profile_run", range(n), indirect=True, scope="session", ids=ids)


@pytest.fixture(scope="session")
def profile_run(request: pytest.FixtureRequest) -> int:
    """Which independent run of the programs the test reads: 0 (the tier's usual one) unless
    `--profile-runs N` parametrizes it over 0..N-1."""
    return int(getattr(request, "param", 0))
