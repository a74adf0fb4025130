"""A folder's baseline: which profile the current one is compared with, the comparison, and its
texts (lens suffix, hover table, the list of changes). No lsprotocol here; the JSON the
client gets is built in `gmonlens_lsp.wire`.

Where the baseline comes from, first found wins:
1. a pinned copy (command `gmonlens.pinBaseline`): the binary and profiles shown, copied into the
   folder's pin directory (`pinstore`: a data folder, not the disposable cache; the user's files
   are never written); `gmonlens.clearBaseline` removes it;
2. the `baseline` setting (gmonlens.yaml or client): profiles and optionally the binary (default:
   the current binary).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from gmonlens.common.model import Profile
from gmonlens.common.options import AnalysisOptions
from gmonlens.load.program import Program
from gmonlens.output.diff_report import MARK
from gmonlens.profile.diff import ProfileDiff, RoutineDiff, diff_profiles

from . import markdown as md
from . import pinstore
from .discovery import _abs, expand_profiles
from .settings import Settings


@dataclass(frozen=True)
class Comparison:
    """The current profile against its baseline."""

    diff: ProfileDiff
    label: str  # "pinned 2026-..." or the profiles' names
    binary: str
    profiles: tuple[str, ...]
    by_new: dict[int, RoutineDiff] = field(default_factory=dict, compare=False)  # new routine id -> row
    base: Profile | None = field(default=None, compare=False)  # the baseline's profile (hover's arcs)


def configured(
    folder: str, settings: Settings, current_binary: str
) -> tuple[tuple[str, tuple[str, ...], str] | None, list[str]]:
    """(binary, profiles, label) of the baseline to use, and problems."""
    pin, problem = pinstore.pinned(folder, settings.pin_folder)
    if pin is not None:
        return (pin.binary, pin.profiles, pin.label), []
    b = settings.baseline
    if b is None:
        return None, [problem] if problem else []
    files, problems = expand_profiles(folder, b.profiles, settings.trusted)
    problems = [problem, *problems] if problem else problems
    if not files:
        return None, problems
    binary = _abs(folder, b.binary) if b.binary else current_binary
    return (binary, tuple(files), ", ".join(os.path.basename(f) for f in files)), problems


def compare(
    current: Profile,
    binary: str,
    profiles: tuple[str, ...],
    label: str,
    options: AnalysisOptions,
    program: Program | None = None,
) -> Comparison:
    """Load the baseline (through the profile cache: a pinned baseline never changes) and compare
    (raises GmonlensError on bad baseline input). `program`: the current load's, whose binary is
    not read again when the baseline names the same file."""
    from gmonlens.load.loader import load_profile

    from . import cache_entries

    same = program is not None and program.path == binary
    base_program = program.with_profiles(profiles) if same and program else Program(binary, profiles)
    key = cache_entries.profile_key(base_program, options)
    base = cache_entries.read_profile(key)
    if not isinstance(base, Profile):
        base = load_profile(base_program, options=options)
        cache_entries.write_profile(key, base)
    d = diff_profiles(base, current)
    by_new = {r.after.id: r for r in d.routines if r.after is not None}
    return Comparison(d, label, binary, profiles, by_new, base)


# ---- texts -----------------------------------------------------------------------------------


def _pct(percent: float | None) -> str:
    return f" ({percent:+.0f}%)" if percent is not None else ""


def change_text(r: RoutineDiff) -> str:
    """`▲ +0.12 s (+35%)` (self time; the total's change when only that is beyond noise),
    `≈` within noise, `new`."""
    if r.before is None:
        return "new since baseline"
    c, what = r.self, ""
    if c.verdict == "noise" and r.total.verdict != "noise":
        c, what = r.total, " total"
    if c.verdict == "noise":
        return f"≈{what} {c.delta:+.2f} s"
    return f"{MARK[c.verdict]}{what} {c.delta:+.2f} s{_pct(c.percent)}"


def lens_suffix(cmp: Comparison | None, rid: int) -> str:
    if cmp is None:
        return ""
    r = cmp.by_new.get(rid)
    return f" · {change_text(r)}" if r is not None else ""


MAX_ARC_ROWS = 12


def _arc_calls(p: Profile | None, rid: int | None, parents: bool) -> dict[str, int]:
    """Calls along each caller (or callee) arc of routine `rid`, by the other end's display name."""
    out: dict[str, int] = {}
    if p is None or rid is None:
        return out
    for pos in (p.parents if parents else p.children)[rid]:
        arc = p.arcs[pos]
        other = p.routines[arc.parent if parents else arc.child].display_name
        out[other] = out.get(other, 0) + arc.count
    return out


def _arc_rows(cmp: Comparison, current: Profile, r: RoutineDiff) -> list[str]:
    """Callers and callees with their call counts in the baseline and now (exact counts)."""
    rows: list[str] = []
    for label, parents in (("caller", True), ("callee", False)):
        before = _arc_calls(cmp.base, r.before.id if r.before else None, parents)
        now = _arc_calls(current, r.after.id if r.after else None, parents)
        names = list(dict.fromkeys([*now, *before]))
        for name in names[:MAX_ARC_ROWS]:
            b, a = before.get(name), now.get(name)
            delta = f"{(a or 0) - (b or 0):+d}" + (" (gone)" if a is None else " (new)" if b is None else "")
            shown = md.text(name)
            rows.append(
                f"| {label} {shown} | {'—' if b is None else b} | {'—' if a is None else a} | {delta} |"
            )
        if len(names) > MAX_ARC_ROWS:
            rows.append(f"| … {len(names) - MAX_ARC_ROWS} more {label}s | | | |")
    return rows


def hover_table(cmp: Comparison, rid: int, current: Profile | None = None) -> str:
    """Baseline and current figures side by side (markdown), or "": the routine's times and calls,
    then the calls along each caller and callee arc (with `current`, the profile of `rid`)."""
    r = cmp.by_new.get(rid)
    if r is None:
        return ""
    b, a = r.before, r.after
    rows = [
        f"**Against the baseline** ({md.text(cmp.label)}): {change_text(r)}",
        "",
        "| | baseline | now | change |",
        "|---|---:|---:|---|",
    ]

    def cell(side: Any, attr: str) -> str:
        return "—" if side is None else f"{getattr(side, attr):.2f}"

    for label, attr, c in (("self s", "self_seconds", r.self), ("total s", "total_seconds", r.total)):
        verdict = MARK[c.verdict] + (" noise" if c.verdict == "noise" else "")
        rows.append(
            f"| {label} | {cell(b, attr)} | {cell(a, attr)} | {c.delta:+.2f}{_pct(c.percent)} {verdict} (z {c.z:.1f}) |"
        )
    cb = "—" if b is None else str(b.calls)
    ca = "—" if a is None else str(a.calls)
    rows.append(f"| calls | {cb} | {ca} | {r.calls_delta:+d} |")
    if current is not None:
        rows += _arc_rows(cmp, current, r)
    if r.status == "renamed" and b is not None:
        rows += ["", f"Renamed from {md.text(b.name)}."]
    rows += [
        "",
        f"*▲/▼: beyond sampling noise (|z| ≥ {cmp.diff.threshold:g}, Poisson samples); ≈: within it.*",
    ]
    return "\n".join(rows)


def kind(r: RoutineDiff) -> str | None:
    if r.status in ("new", "gone"):
        return (
            r.status if (r.self.verdict != "noise" or r.total.verdict != "noise" or r.calls_delta) else None
        )
    if r.self.verdict == "up" or r.total.verdict == "up":
        return "regression"
    if r.self.verdict == "down" or r.total.verdict == "down":
        return "improvement"
    return None


def changes(cmp: Comparison) -> list[tuple[RoutineDiff, str]]:
    """Regressions then improvements, then new and gone routines; in each group those whose self
    time changed beyond noise first (that is where the time went), largest change first."""
    order = {"regression": 0, "improvement": 1, "new": 2, "gone": 3}
    out = [(r, k) for r in cmp.diff.routines if (k := kind(r)) is not None]

    def size(r: RoutineDiff) -> tuple[bool, float]:
        c = r.self if r.self.verdict != "noise" else r.total
        return r.self.verdict == "noise", -abs(c.delta)

    out.sort(key=lambda e: (order[e[1]], size(e[0]), e[0].display_name))
    return out
