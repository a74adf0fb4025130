"""CallGraph -> Graphviz dot, in the style gprof2dot made familiar: boxes coloured on a blue -> red
ramp by total time, labelled name / total % / (self %) / calls; edges coloured and thickened by the
time gprof propagates along them, labelled % / calls; cycle members grouped in a cluster, calls
inside a cycle dashed (gprof gives them no time)."""

from __future__ import annotations

import colorsys

from gmonlens.output.graph import CallGraph


def ramp(weight: float) -> str:
    """#rrggbb for a weight in [0, 1]: dark blue (cold) to saturated red (hot)."""
    w = min(max(weight, 0.0), 1.0)
    h = (2.0 / 3.0) * (1.0 - w)
    s = 0.8 + 0.2 * w
    light = 0.25 + 0.25 * w
    r, g, b = colorsys.hls_to_rgb(h, light, s)
    return "#%02x%02x%02x" % (round(r * 255), round(g * 255), round(b * 255))


def _esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _calls(n: int, self_calls: int) -> str:
    if n and self_calls:
        return f"{n}+{self_calls}×"
    return f"{n or self_calls}×"


def to_dot(g: CallGraph, *, demangle: bool = True) -> str:
    out = [
        "digraph gmonlens {\n",
        '  graph [fontname="Arial", nodesep=0.125, ranksep=0.25];\n',
        '  node [fontcolor=white, fontname="Arial", shape=box, style=filled];\n',
        '  edge [fontname="Arial"];\n',
    ]
    by_cycle: dict[int, list[str]] = {}
    for n in g.nodes:
        name = n.display_name if demangle else n.name
        label = f"{_esc(name)}\\n{n.percent:.2f}%\\n({n.self_percent:.2f}%)"
        if n.calls or n.self_calls:
            label += "\\n" + _calls(n.calls, n.self_calls)
        color = ramp(n.percent / 100.0)
        line = f'  {n.routine} [label="{label}", color="{color}"'
        if n.routine == g.center:
            line += ", penwidth=3"
        line += "];\n"
        if n.cycle:
            by_cycle.setdefault(n.cycle, []).append(line)
        else:
            out.append(line)
    for k in sorted(by_cycle):
        out.append(f'  subgraph cluster_cycle{k} {{\n    label="<cycle {k}>"; style=dashed;\n')
        out.extend("  " + line for line in by_cycle[k])
        out.append("  }\n")
    for e in g.edges:
        w = e.percent / 100.0
        color = ramp(w)
        label = f"{_calls(e.count, 0)}" if e.in_cycle else f"{e.percent:.2f}%\\n{_calls(e.count, 0)}"
        attrs = (
            f'label="{label}", color="{color}", fontcolor="{color}", '
            f"penwidth={0.5 + 3.5 * w:.2f}, arrowsize={0.5 + 0.5 * w**0.5:.2f}"
        )
        if e.in_cycle:
            attrs += ", style=dashed"
        out.append(f"  {e.parent} -> {e.child} [{attrs}];\n")
    out.append("}\n")
    return "".join(out)
