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

With `open_cycles` (the editor's flame graph), a cycle's frame opens into its members: one frame
per member inside it, as wide as the member's line of gprof's `<cycle N as a whole>` entry says
(its self time, measured, and its children: the time of its callees outside the cycle), scaled
like the cycle's; the member's callees outside the cycle below it. The cycle's frame then keeps no
self time of its own. gprof puts no time on the calls between members, so a member's frame says
nothing of which member called which: that split of the cycle's frame is gprof's estimate, and
member frames (and all below them) are marked estimated and carry their cycle (`member_of`).

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
    member_of: int = 0  # a member's frame inside its opened cycle's (`open_cycles`): the cycle

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
    members: list[list[tuple[int, float]]]  # per cycle: (member, its gprof total), widest first
    member_out: dict[int, list[tuple[int, float]]]  # a member's callee nodes outside its cycle


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
    member_out: dict[int, dict[int, float]] = {}
    for m, x, y, t in zip(tm.x, tm.px, tm.py, tm.ticks, strict=True):
        callers[y].add(x)
        if t > 0:
            outd[x][y] = outd[x].get(y, 0.0) + t
            inc[y] += t
            if x >= n:  # from a member of cycle x
                member_out.setdefault(m, {})
                member_out[m][y] = member_out[m].get(y, 0.0) + t
    out = [sorted(d.items(), key=lambda e: -e[1]) for d in outd]
    members = [
        sorted(((m, rs[m].total_ticks) for m in c.members), key=lambda e: (-e[1], e[0])) for c in p.cycles
    ]
    roots = []
    for v in range(n + nc):
        if v < n and p.routines[v].cycle:
            continue
        rest = total[v] if inc[v] <= 0 else total[v] - inc[v]
        if rest > 1e-9 * total[v] and rest > 0:
            roots.append((v, rest))
    roots.sort(key=lambda e: -e[1])
    mout = {m: sorted(d.items(), key=lambda e: -e[1]) for m, d in member_out.items()}
    return _Graph(total, pself, out, [len(s) for s in callers], shown, roots, members, mout)


# what the walk pushes: (kind, node, parent frame, width, estimated, depth); kinds:
_LEVEL, _NODE, _OTHER, _MEMBER = 0, 1, 2, 3  # the roots' level, a node's frame, `other`, a member's
_Item = tuple[int, int, int, float, bool, int]


def flame_tree(
    p: Profile, min_fraction: float = MIN_FRACTION, max_frames: int = MAX_FRAMES, open_cycles: bool = False
) -> FlameTree:
    """The tree (module docstring). `min_fraction` 0 keeps every frame with time (up to
    `max_frames`); `open_cycles` opens each cycle's frame into its members."""
    g = _graph(p)
    total = sum(w for _, w in g.roots)
    walk = _Walk(p, g, min_fraction * total, max_frames, open_cycles)
    stack: list[_Item] = [(_LEVEL, -1, -1, total, False, -1)]
    while stack:
        walk.visit(stack.pop(), stack)
    return FlameTree(tuple(walk.frames), total, p.hz, walk.truncated)


class _Walk:
    """`flame_tree`'s depth-first walk: each item popped becomes a frame, its children pushed."""

    def __init__(self, p: Profile, g: _Graph, least: float, max_frames: int, open_cycles: bool) -> None:
        self.p, self.g, self.least, self.max_frames, self.open_cycles = p, g, least, max_frames, open_cycles
        self.n = len(p.routines)
        self.frames: list[Frame] = []
        self.truncated = False

    def visit(self, item: _Item, stack: list[_Item]) -> None:
        kind, v, parent, width, est, depth = item
        g, frames = self.g, self.frames
        if kind == _OTHER:
            frames.append(Frame(parent, -1, 0, width, width, est, depth))
            return
        kids: list[tuple[int, float]]
        kid_kind = _NODE
        if kind == _LEVEL:
            me, kids = -1, g.roots
        else:
            scale = width / g.total[v] if g.total[v] > 0 else 0.0
            if kind == _MEMBER:
                cycle = self.p.routines[v].cycle
                frames.append(Frame(parent, v, 0, width, g.pself[v] * scale, est, depth, cycle))
                kids = [(y, t * scale) for y, t in g.member_out.get(v, ())]
            elif v >= self.n and self.open_cycles:  # a cycle, opened: its members' frames inside
                frames.append(Frame(parent, -1, v - self.n + 1, width, 0.0, est, depth))
                kids, kid_kind = [(m, t * scale) for m, t in g.members[v - self.n]], _MEMBER
            else:
                r, c = (v, 0) if v < self.n else (-1, v - self.n + 1)
                frames.append(Frame(parent, r, c, width, g.pself[v] * scale, est, depth))
                kids = [(y, t * scale) for y, t in g.out[v]]
            me = len(frames) - 1
        self._children(stack, kids, kid_kind, me, kind, est, depth)

    def _children(
        self, stack: list[_Item], kids: list[tuple[int, float]], kid_kind: int, me: int, kind: int, est: bool,
        depth: int,
    ) -> None:  # fmt: skip
        """Push the frames of `kids` (node or member, width), the small ones folded into `other`."""
        g = self.g
        other, other_est = 0.0, False
        pending: list[_Item] = []
        for y, w in kids:
            # a member's share of its cycle is gprof's estimate; a node's when it has several callers
            y_est = est or kid_kind == _MEMBER or (kind in (_NODE, _MEMBER) and g.callers[y] > 1)
            small = w < self.least or not g.shown[y]
            if (
                not small
                and not self.truncated
                and len(self.frames) + len(stack) + len(pending) >= self.max_frames
            ):
                self.truncated = True
            if small or self.truncated:
                other += w
                other_est = other_est or y_est
            else:
                pending.append((kid_kind, y, me, w, y_est, depth + 1))
        if other > 0:  # pushed first: popped after its siblings
            stack.append((_OTHER, -1, me, other, other_est, depth + 1))
        stack.extend(reversed(pending))


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
