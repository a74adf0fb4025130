"""ProfileDiff -> text table and JSON (pure).

JSON schema `gmonlens-diff/1` (times in seconds):
- `schema`, `threshold` (|z| at or above which a change is beyond noise), `normalized` (bool),
  `scale` (the factor k applied to the base, 1.0 unless normalized), `base` and `new`:
  {`binary`, `profiles`, `sample_period` (seconds per sample or null), `hz`, `total_seconds`}
- `total`: gprof's total time as a change (below)
- `routines[]`, largest self change first: `name` (raw/mangled), `display_name`, `file`,
  `status` ("matched", "renamed", "new", "gone"), `base_name` (the base's name when renamed),
  `before` / `after` (null when absent on that side): {`self_seconds`, `children_seconds`,
  `total_seconds`, `calls`, `recursive_calls`, `self_samples`, `total_samples`},
  `self` and `total`: changes, `calls_delta`
- a change: {`before`, `after`, `delta`, `ratio` (null when before is 0), `percent` (idem),
  `z`, `verdict`: "up" | "down" | "noise"}
- `failed[]` (only with --fail-over): {`name`, `reason`}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gmonlens.profile.diff import Change, ProfileDiff, RoutineDiff, Side

SCHEMA = "gmonlens-diff/1"
MARK = {"up": "▲", "down": "▼", "noise": "≈"}


def _change_json(c: Change) -> dict[str, Any]:
    return {
        "before": c.before,
        "after": c.after,
        "delta": c.delta,
        "ratio": c.ratio,
        "percent": c.percent,
        "z": c.z,
        "verdict": c.verdict,
    }


def _side_json(s: Side | None) -> dict[str, Any] | None:
    if s is None:
        return None
    return {
        "self_seconds": s.self_seconds,
        "children_seconds": s.children_seconds,
        "total_seconds": s.total_seconds,
        "calls": s.calls,
        "recursive_calls": s.recursive_calls,
        "self_samples": s.self_samples,
        "total_samples": s.total_samples,
    }


def _run_json(binary: str, profiles: Sequence[str], period: float, total: float) -> dict[str, Any]:
    return {
        "binary": binary,
        "profiles": list(profiles),
        "sample_period": period or None,
        "hz": round(1.0 / period) if period else 0,
        "total_seconds": total,
    }


def to_json(
    d: ProfileDiff,
    base: tuple[str, Sequence[str]],
    new: tuple[str, Sequence[str]],
    failed: Sequence[tuple[RoutineDiff, str]] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "schema": SCHEMA,
        "threshold": d.threshold,
        "normalized": d.normalized,
        "scale": d.scale,
        "base": _run_json(base[0], base[1], d.base_period, d.total.before),
        "new": _run_json(new[0], new[1], d.new_period, d.total.after),
        "total": _change_json(d.total),
        "routines": [
            {
                "name": r.name,
                "display_name": r.display_name,
                "file": r.file,
                "status": r.status,
                "base_name": r.before.name if r.before else None,
                "before": _side_json(r.before),
                "after": _side_json(r.after),
                "self": _change_json(r.self),
                "total": _change_json(r.total),
                "calls_delta": r.calls_delta,
            }
            for r in d.routines
        ],
    }
    if failed is not None:
        out["failed"] = [{"name": r.display_name, "reason": why} for r, why in failed]
    return out


def signed(x: float) -> str:
    return f"{x:+.2f}"


def ratio_text(c: Change) -> str:
    r = c.ratio
    if r is None:
        return "∞" if c.after > 0 else "-"
    return f"{r:.2f}x"


def _calls(s: Side | None) -> str:
    if s is None:
        return "-"
    return f"{s.calls}+{s.recursive_calls}" if s.recursive_calls else str(s.calls)


def _secs(s: Side | None, attr: str) -> str:
    return "-" if s is None else f"{getattr(s, attr):.2f}"


def _status(r: RoutineDiff) -> str:
    if r.status == "renamed" and r.before is not None:
        return f" (renamed from {r.before.name})"
    if r.status in ("new", "gone"):
        return f" ({r.status})"
    return ""


def render_text(d: ProfileDiff, base: tuple[str, Sequence[str]], new: tuple[str, Sequence[str]]) -> str:
    lines = []
    for label, (binary, profiles), period in (("base", base, d.base_period), ("new ", new, d.new_period)):
        rate = f"{period:.6g} s/sample" if period else "no histogram"
        lines.append(f"{label}: {binary} {' '.join(profiles)} ({rate})")
    t = d.total
    pct = f" ({t.percent:+.0f}%)" if t.percent is not None else ""
    lines.append(
        f"total: {t.before:.2f} s -> {t.after:.2f} s, {signed(t.delta)} s{pct} {MARK[t.verdict]} (z={t.z:.1f})"
    )
    note = f"|z| >= {d.threshold:g}" + (f", base scaled by {d.scale:.3f}" if d.normalized else "")
    lines.append(f"▲ slower, ▼ faster beyond sampling noise ({note}); ≈ within noise")
    lines.append("")
    lines.append("   self seconds                      total seconds                     calls")
    lines.append(
        " before   after    delta  ratio    before   after    delta  ratio    before     after  name"
    )
    names: dict[str, int] = {}
    for r in d.routines:
        names[r.display_name] = names.get(r.display_name, 0) + 1
    for r in d.routines:
        b, a = r.before, r.after
        name = r.display_name
        if names[name] > 1 and r.file:  # statics of one name: say which file
            name += f" [{r.file.rsplit('/', 1)[-1]}]"
        lines.append(
            f"{_secs(b, 'self_seconds'):>7} {_secs(a, 'self_seconds'):>7} "
            f"{signed(r.self.delta):>7}{MARK[r.self.verdict]} {ratio_text(r.self):>6}  "
            f"{_secs(b, 'total_seconds'):>8} {_secs(a, 'total_seconds'):>7} "
            f"{signed(r.total.delta):>7}{MARK[r.total.verdict]} {ratio_text(r.total):>6}  "
            f"{_calls(b):>8} {_calls(a):>9}  {name}{_status(r)}"
        )
    return "\n".join(lines) + "\n"
