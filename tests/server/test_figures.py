"""The figures vocabulary every front end formats from (`gmonlens_ide.figures`, `gmonlens.common.units`):
seconds from samples (None without a sampling rate), shown totals that add up, "few samples" never
said of 0.00, and a profile without a rate rendered without a crash or a NaN (lens, hover, MCP)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gmonlens.common import units
from gmonlens.common.model import Profile
from gmonlens_ide import figures as fig
from gmonlens_lsp import to_lsp
from gmonlens_lsp.wire import hottest_entry
from golden_programs import CYCLES, engine_profile


def test_units_one_rule() -> None:
    assert units.seconds(50, 100) == 0.5
    assert units.seconds(50, 0) is None and units.period(0) is None and units.stderr_seconds(4, 0) is None
    assert units.stderr_seconds(4, 100) == pytest.approx(0.02)
    assert units.scaled(3, 100, 1_000_000) == 30_000 and units.scaled(3, 0, 1_000_000) == 0
    assert (
        units.shown(None) == "n/a"
        and units.shown(None, "8.2f") == "     n/a"
        and units.shown(0.125) == "0.12"
    )


def test_shown_total_adds_up() -> None:
    # self 0.024 s shows 0.02, children 0.334 s shows 0.33: the total shown is their sum, 0.35,
    # where the total rounded on its own (0.358) would show 0.36 beside them
    assert fig.shown_sum(0.024, 0.334) == "0.35"
    assert f"{0.024 + 0.334:.2f}" == "0.36"
    assert fig.shown_sum(0.1, None) == "n/a"


def test_few_samples_not_said_of_zero() -> None:
    assert fig.is_few(3, "0.03")
    assert not fig.is_few(0.4, "0.00")  # a total shown as 0.00 s: nothing to warn about
    assert not fig.is_few(12, "0.12") and not fig.is_few(0, "0.00") and not fig.is_few(3, "n/a")


@pytest.fixture
def small_profile() -> Profile:
    """gprof's figures of a Python-built program with cycles (`golden_programs.CYCLES`)."""
    return engine_profile(CYCLES, CYCLES.variants[0])[0]


def test_routine_figures_add_up_on_a_real_profile(small_profile: Profile) -> None:
    for r in small_profile.routines:
        f = fig.routine_figures(small_profile, r)
        if f.self_s != "n/a":
            assert f"{float(f.self_s) + float(f.children_s):.2f}" == f.total_s, r.display_name


def test_a_profile_without_a_rate_says_so(small_profile: Profile) -> None:
    p = replace(small_profile, hz=0)
    hot = max(p.routines, key=lambda r: r.total_ticks)
    f = fig.routine_figures(p, hot)
    assert (f.self_s, f.children_s, f.total_s, f.self_err) == ("n/a", "n/a", "n/a", "n/a")
    assert not f.few
    text = to_lsp.hover_markdown(p, {}, hot.id)
    assert "nan" not in text.lower() and "n/a" in text
    assert hottest_entry(p, hot, None)["totalSeconds"] is None
