"""`compare_with_baseline`: `gmonlens diff` of a baseline against the current profile.

The baseline is the profiles (files or globs, relative to the workspace folder) and binary given,
else the workspace's configured one (a pinned copy, or `baseline` in gmonlens.yaml: the language
server's `baseline.configured`). Its profile is read from the engine's disk cache, else computed
and written there. Rows are `gmonlens.profile.diff`'s: matched across builds, largest change first, each
change of self and total time tested against sampling noise (module doc of `gmonlens.profile.diff`).
"""

from __future__ import annotations

import os
from typing import Any

from gmonlens.common.errors import GmonlensError
from gmonlens.common.model import Profile
from gmonlens.common.options import AnalysisOptions
from gmonlens.profile.diff import Change, RoutineDiff, diff_profiles
from gmonlens_ide import baseline
from gmonlens_ide import cache_entries as cache
from gmonlens_ide.discovery import expand_profiles
from gmonlens_ide.settings import outside_pattern

from .rpc import ToolResult
from .wording import TRUST, reworded
from .workspace import ToolFailure, View

MARK = {"up": "▲ slower", "down": "▼ faster", "noise": "≈ noise"}


def _baseline(view: View, args: dict[str, Any]) -> tuple[str, tuple[str, ...], str]:
    folder = view.folder
    if "baseline_profiles" not in args:
        found, problems = baseline.configured(folder, view.loaded.settings, view.loaded.binary)
        if found is None:
            raise ToolFailure(
                "no baseline: give baseline_profiles (and baseline_binary when another build wrote "
                "them), or set `baseline` in gmonlens.yaml" + "".join(f"; {p}" for p in problems)
            )
        return found
    trusted = view.loaded.settings.trusted
    binary = args.get("baseline_binary")
    if not trusted:  # as the language server fences a workspace's paths (settings.fence)
        for path in [*args["baseline_profiles"], *([binary] if binary else [])]:
            if outside_pattern(folder, path):
                raise ToolFailure(
                    f"{path}: leads outside the workspace folder {folder}: read only when the server is "
                    f"trusted ({TRUST})",
                    {"path": path, "outside_workspace": True},
                )
    files, problems = expand_profiles(folder, args["baseline_profiles"], trusted)
    if problems:
        raise ToolFailure(reworded(problems[0]))
    if binary:
        binary = os.path.normpath(os.path.join(folder, os.path.expanduser(binary)))
    return binary or view.loaded.binary, tuple(files), ", ".join(view.rel(f) or f for f in files)


def _load(binary: str, profiles: tuple[str, ...], options: AnalysisOptions) -> Profile:
    from gmonlens.load.loader import load_profile
    from gmonlens.load.program import Program

    program = Program(binary, profiles)  # each file read once
    try:
        key = cache.profile_key(program, options)
        base = cache.read_profile(key)
        if not isinstance(base, Profile):
            base = load_profile(program, options=options)
            cache.write_profile(key, base)
    except GmonlensError as exc:
        raise ToolFailure(f"baseline not loaded: {exc}") from None
    return base


def _change(c: Change) -> dict[str, Any]:
    return {"before": c.before, "after": c.after, "delta": c.delta, "percent": c.percent,
            "z": c.z if abs(c.z) != float("inf") else None, "verdict": c.verdict}  # fmt: skip


def _row(d: RoutineDiff) -> dict[str, Any]:
    return {
        "name": d.display_name,
        "symbol": d.name,
        "status": d.status,
        "file": d.file,
        "self": _change(d.self),
        "total": _change(d.total),
        "calls_before": d.before.calls if d.before else None,
        "calls_after": d.after.calls if d.after else None,
    }


def compare(view: View, args: dict[str, Any]) -> ToolResult:
    binary, profiles, label = _baseline(view, args)
    options = AnalysisOptions(static_call_graph=view.loaded.settings.static_call_graph)
    base = _load(binary, profiles, options)
    d = diff_profiles(base, view.profile, threshold=args["threshold"], normalize=args["normalize"])
    rows = [_row(r) for r in d.routines]
    limit = args["limit"]
    out = {
        "baseline": {
            "binary": binary,
            "profiles": list(profiles),
            "label": label,
            "sample_period_seconds": d.base_period or None,
        },
        "current": {
            "binary": view.loaded.binary,
            "profiles": list(view.loaded.profiles),
            "sample_period_seconds": d.new_period or None,
        },
        "threshold": d.threshold,
        "normalized": d.normalized,
        # with `normalized`, the baseline's figures scaled by this (the runs' total times' ratio)
        # before testing; the seconds given stay each run's own
        "scale": d.scale,
        "total": _change(d.total),
        "slower": sum(1 for r in d.routines if r in d.regressions()),
        "faster": len(d.improvements()),
        "new": sum(1 for v in rows if v["status"] == "new"),
        "gone": sum(1 for v in rows if v["status"] == "gone"),
        "routines": rows[:limit],
        "more": max(len(rows) - limit, 0),
        "noise_model": "self samples are Poisson: z = (after - before) / sqrt(variance of both), "
        "|z| >= threshold is beyond noise; totals use their tick count as variance (conservative)",
    }
    t = d.total
    note = f"|z| >= {d.threshold:g}" + (f", base scaled by {d.scale:.3f}" if d.normalized else "")
    lines = [
        f"total {t.before:.2f} s -> {t.after:.2f} s ({t.delta:+.2f} s, {MARK[t.verdict]}, z={t.z:.1f}); "
        f"{out['slower']} routines slower, {out['faster']} faster beyond noise ({note})"
    ]
    if d.normalized:
        lines.append(
            "normalized: each routine compared as a share of its run's total time; seconds shown "
            "are each run's own"
        )
    for r in d.routines[:limit]:
        s = r.self
        pct = f" ({s.percent:+.0f}%)" if s.percent is not None else ""
        lines.append(
            f"{r.display_name}: self {s.before:.2f} -> {s.after:.2f} s{pct} {MARK[s.verdict]}; "
            f"total {r.total.before:.2f} -> {r.total.after:.2f} s {MARK[r.total.verdict]}"
            + (f" [{r.status}]" if r.status != "matched" else "")
        )
    return ToolResult(out, "\n".join(lines))
