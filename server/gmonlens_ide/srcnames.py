"""The identifier a routine's declaration is written with, from its demangled name."""

from __future__ import annotations


def source_name(decl_name: str, display_name: str) -> str:
    """The identifier to find in the source line: `accumulate<int>` -> `accumulate`,
    `geo::Circle::area() const` -> `area`."""
    name = decl_name or _last_scope(display_name)
    if name.startswith("operator"):
        return "operator"
    name = name.split("<", 1)[0].split("[abi:", 1)[0]
    for suffix in (".part.", ".constprop.", ".isra.", ".cold", ".clone.", ".lto_priv."):
        if suffix in name:
            name = name.split(suffix, 1)[0]
    return name


def _last_scope(display_name: str) -> str:
    """The last scope of a demangled name without its parameters and return type:
    `f(Slice)::State::Match(void*)` -> `Match`, `long const& std::min<long>(...)` -> `min<long>`,
    `{lambda(long)#1}::operator()(long) const` -> `operator()`."""
    depth, params, cut = 0, -1, 0
    for i, ch in enumerate(display_name):
        if ch in "(<{[":
            if ch == "(" and depth == 0:
                params = i
            depth += 1
        elif ch in ")>}]":
            depth = max(depth - 1, 0)
    base = display_name[:params] if params > 0 else display_name
    depth = 0
    for i, ch in enumerate(base):
        if ch in "(<{[":
            depth += 1
        elif ch in ")>}]":
            depth = max(depth - 1, 0)
        elif depth == 0 and (
            (ch == " " and not base[cut:].startswith("operator")) or base.startswith("::", i)
        ):
            cut = i + (2 if ch == ":" else 1)
    return base[cut:]
