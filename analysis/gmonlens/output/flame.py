"""The flame graph of gprof's call graph: a top-down tree whose widths add up (pure).

The tree is built from gprof's propagated times. Nodes are routines outside cycles and cycles (one
frame each, named as gprof names them, `<cycle N as a whole>`). A root is a node no caller passes
time to: a spontaneous routine, or one whose callers propagate nothing (`-E`, static-only `-c`
arcs). A root's frame is as wide as the node's gprof total (self + children). Inside a frame of
node X that is `w` wide, X's time is shared as gprof shares it: X's self time and each callee
node Y's time along X's arcs (`callgraph.py`), all scaled by `w / total(X)`. So

- the frames of each node add up to its gprof total, and their self parts to its self time (a
  cycle's are its members' summed: gprof's `as a whole` line, except for a cycle no routine outside
  it calls, whose whole gprof prints as 0 while its members keep their time);
- the roots add up to gprof's call-graph total (`Profile.print_ticks`);
- a frame is an *estimate* when some node on its path below the root has more than one caller
  (`certainty.py`): its width then rests on gprof's proportional split.

Frames narrower than `min_fraction` of the total, and frames of routines whose call-graph entry
gprof does not print (`-e/-f/-q/-Q`), are folded into one `other` frame per parent (or one root
`other`), so widths still add up. Times are in ticks (samples).

`folded` writes the tree as Brendan Gregg's folded stacks: one line per frame with self time,
frames joined by `;`, the value the frame's self time in integer microseconds (apportioned so that
the lines add up to the total, rounded).
"""

from __future__ import annotations

from dataclasses import dataclass

from gmonlens.common.model import Profile
from gmonlens.common.units import scaled
from gmonlens.output.export_common import apportion
from gmonlens.profile.certainty import timed_columns

OTHER = "other"
MIN_FRACTION = 0.0001  # frames under 0.01% of the total are folded (export default)
MAX_FRAMES = 1_000_000  # frames beyond this are folded too (a call graph's tree can be exponential)


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame: `routine` (id, or -1), `cycle` (number, or 0); both unset for an `other` frame."""

    parent: int  # index of the parent frame, -1 for a root
    routine: int
    cycle: int
    width: float  # ticks: self + the children frames
    self_ticks: float
    estimated: bool  # the width rests on a proportional split on the path
    depth: int  # 0 for roots

    @property
    def is_other(self) -> bool:
        return self.routine < 0 and self.cycle == 0


@dataclass(frozen=True)
class FlameTree:
    """Frames in depth-first order (a parent before its children, siblings widest first, `other`
    last); `total_ticks` is the roots' sum."""

    frames: tuple[Frame, ...]
    total_ticks: float
    hz: int
    truncated: bool  # MAX_FRAMES was reached and later frames were folded


@dataclass
class _Graph:
    total: list[float]
    pself: list[float]
    out: list[list[tuple[int, float]]]  # callee node, ticks; widest first
    callers: list[int]  # distinct caller nodes
    shown: list[bool]
    roots: list[tuple[int, float]]


def _graph(p: Profile) -> _Graph:
    n, nc = len(p.routines), len(p.cycles)
    rs = p.routines
    total = [r.total_ticks for r in rs] + [sum(rs[m].total_ticks for m in c.members) for c in p.cycles]
    pself = [r.prop_self_ticks for r in rs] + [
        sum(rs[m].prop_self_ticks for m in c.members) for c in p.cycles
    ]
    shown = [r.printed for r in rs] + [any(rs[m].printed for m in c.members) for c in p.cycles]
    outd: list[dict[int, float]] = [{} for _ in range(n + nc)]
    callers: list[set[int]] = [set() for _ in range(n + nc)]
    inc = [0.0] * (n + nc)
    tm = timed_columns(p)
    for x, y, t in zip(tm.px, tm.py, tm.ticks, strict=True):
        callers[y].add(x)
        if t > 0:
            outd[x][y] = outd[x].get(y, 0.0) + t
            inc[y] += t
    out = [sorted(d.items(), key=lambda e: -e[1]) for d in outd]
    roots = []
    for v in range(n + nc):
        if v < n and p.routines[v].cycle:
            continue
        rest = total[v] if inc[v] <= 0 else total[v] - inc[v]
        if rest > 1e-9 * total[v] and rest > 0:
            roots.append((v, rest))
    roots.sort(key=lambda e: -e[1])
    return _Graph(total, pself, out, [len(s) for s in callers], shown, roots)


def flame_tree(p: Profile, min_fraction: float = MIN_FRACTION, max_frames: int = MAX_FRAMES) -> FlameTree:
    """The tree (module docstring). `min_fraction` 0 keeps every frame with time (up to
    `max_frames`)."""
    g = _graph(p)
    n = len(p.routines)
    total = sum(w for _, w in g.roots)
    least = min_fraction * total
    frames: list[Frame] = []
    truncated = False
    # (kind, node, parent frame, width, estimated, depth): kind 0 the roots' level, 1 a node's
    # frame, 2 an `other` frame
    stack: list[tuple[int, int, int, float, bool, int]] = [(0, -1, -1, total, False, -1)]
    while stack:
        kind, v, parent, width, est, depth = stack.pop()
        if kind == 2:
            frames.append(Frame(parent, -1, 0, width, width, est, depth))
            continue
        if kind == 1:
            scale = width / g.total[v] if g.total[v] > 0 else 0.0
            r, c = (v, 0) if v < n else (-1, v - n + 1)
            frames.append(Frame(parent, r, c, width, g.pself[v] * scale, est, depth))
            me = len(frames) - 1
            kids = [(y, t * scale) for y, t in g.out[v]]
        else:
            me, kids = -1, g.roots
        other, other_est = 0.0, False
        pending: list[tuple[int, int, int, float, bool, int]] = []
        for y, w in kids:
            y_est = est or (kind == 1 and g.callers[y] > 1)
            small = w < least or not g.shown[y]
            if not small and not truncated and len(frames) + len(stack) + len(pending) >= max_frames:
                truncated = True
            if small or truncated:
                other += w
                other_est = other_est or y_est
            else:
                pending.append((1, y, me, w, y_est, depth + 1))
        if other > 0:  # pushed first: popped after its siblings
            stack.append((2, -1, me, other, other_est, depth + 1))
        stack.extend(reversed(pending))
    return FlameTree(tuple(frames), total, p.hz, truncated)


def frame_name(p: Profile, f: Frame, demangle: bool = True) -> str:
    """A frame's name: the routine's (demangled unless `demangle` is False), gprof's cycle name,
    or `other`."""
    if f.routine >= 0:
        r = p.routines[f.routine]
        return r.display_name if demangle else r.name
    if f.cycle:
        return f"<cycle {f.cycle} as a whole>"
    return OTHER


def folded(p: Profile, tree: FlameTree, demangle: bool = True) -> str:
    """The tree as folded stacks (module docstring); `;` and line breaks in names become `:` and
    spaces."""
    names = [frame_name(p, f, demangle).replace(";", ":").replace("\n", " ") for f in tree.frames]
    stacks: list[str] = []
    for i, f in enumerate(tree.frames):
        stacks.append(names[i] if f.parent < 0 else f"{stacks[f.parent]};{names[i]}")
    total_us = scaled(tree.total_ticks, p.hz, 1_000_000)
    with_self = [i for i, f in enumerate(tree.frames) if f.self_ticks > 0]
    values = apportion(total_us, [tree.frames[i].self_ticks for i in with_self])
    return "".join(f"{stacks[i]} {v}\n" for i, v in zip(with_self, values, strict=True) if v > 0)
