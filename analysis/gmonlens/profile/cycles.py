"""Cycle discovery and topological numbering: the BSD "dfn" procedure (§6).

The result (SCCs, heads, member order, numbers) is exactly dfn's. The bookkeeping differs so
that a huge cycle stays cheap: heads are a union-find (a glom re-heads a whole chain in O(1)),
chains keep tail pointers, stack positions are indexed, and a glom scans only the stack entries
not yet glommed (the members of a cycle on the stack always form a contiguous run above its head).
"""

from __future__ import annotations

from collections.abc import Sequence

from gmonlens.common.errors import GmonlensError


class CycleError(GmonlensError):
    """The call graph broke an invariant of the cycle finder (never expected on real input)."""


class _Dfn:
    def __init__(self, n: int) -> None:
        self.top = [0] * n  # 0 unvisited, -1 busy, >=1 numbered
        self.uf = list(range(n))  # union-find parent: find(x) is x's chain head
        self.nxt = [-1] * n
        self.tail = list(range(n))  # chain end, valid for heads
        self.stack: list[int] = []
        self.pos = [-1] * n  # position on the stack, -1 when not on it

    def find(self, x: int) -> int:
        uf = self.uf
        root = x
        while uf[root] != root:
            root = uf[root]
        while uf[x] != root:
            uf[x], x = root, uf[x]
        return root

    def find_cycle(self, c: int) -> None:
        stack, pos = self.stack, self.pos
        if pos[c] >= 0:
            idx = pos[c]
        else:
            hc = self.find(c)
            if hc == c or pos[hc] < 0:
                raise CycleError(None, "internal error: cycle head not found on the dfn stack")
            idx = pos[hc]
        top_idx = len(stack) - 1
        if idx == top_idx:
            return  # a self call
        h = self.find(stack[idx])
        k = top_idx
        while k > idx and self.find(stack[k]) != h:
            k -= 1
        uf, nxt, tail = self.uf, self.nxt, self.tail
        for s in stack[k + 1 :]:
            r = self.find(s)
            if r == h:
                continue  # re-headed with its own head earlier in this pass
            if r != s:
                raise CycleError(None, "internal error: glommed, but not to head")
            nxt[tail[h]] = s
            tail[h] = tail[s]
            uf[s] = h

    def run(self, at: Sequence[int], flat: Sequence[int]) -> None:
        top, stack, pos = self.top, self.stack, self.pos
        counter = 0
        for root in range(len(at) - 1):
            if top[root] != 0:
                continue
            if at[root] == at[root + 1]:  # unvisited, no children (most of -l's line symbols):
                counter += 1  # numbered at once, as its visit would (a chain of itself)
                top[root] = counter
                continue
            top[root] = -1
            pos[root] = 0
            stack.append(root)
            frames: list[list[int]] = [[root, at[root]]]
            while frames:
                frame = frames[-1]
                p, i = frame
                if i < at[p + 1]:
                    frame[1] = i + 1
                    c = flat[i]
                    t = top[c]
                    if t > 0:
                        continue
                    if t == -1:
                        self.find_cycle(c)
                        continue
                    top[c] = -1
                    pos[c] = len(stack)
                    stack.append(c)
                    frames.append([c, at[c]])
                    continue
                if self.uf[p] == p:  # post-visit of a head: number its whole chain
                    counter += 1
                    q = p
                    while q != -1:
                        top[q] = counter
                        q = self.nxt[q]
                pos[stack.pop()] = -1
                frames.pop()


def dfn_order(children: Sequence[Sequence[int]]) -> tuple[list[int], list[int], list[int]]:
    """Run gprof's dfn over nodes 0..n-1 (address order), `children[p]` in list order.

    Returns (top_order, head, next): `top_order[p]` >= 1 (callees get lower numbers; cycle members
    share one), `head[p]` the head of p's chain (p itself when alone), `next[p]` the following
    chain member or -1.
    """
    at = [0]
    flat: list[int] = []
    for kids in children:
        flat.extend(kids)
        at.append(len(flat))
    return dfn_order_grouped(at, flat)


def dfn_order_grouped(at: Sequence[int], flat: Sequence[int]) -> tuple[list[int], list[int], list[int]]:
    """`dfn_order` with the children grouped in one sequence: node p's are flat[at[p]:at[p + 1]]
    (`at` has n + 1 entries)."""
    n = len(at) - 1
    d = _Dfn(n)
    d.run(at, flat)
    uf = d.uf
    return d.top, [x if uf[x] == x else d.find(x) for x in range(n)], d.nxt
