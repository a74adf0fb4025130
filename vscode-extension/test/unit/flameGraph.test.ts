// The flame graph's pure parts: the server's answer checked, the layout (widths add up, children inside
// their parent, zoom), search, the frames' HTML (estimates and `other` marked) and the butterfly.
import assert from "node:assert/strict";
import { test } from "node:test";
import { butterfly, butterflyHtml, frameTooltip, frameViews, layout, routineSeconds, search } from "../../src/flameGraph";
import { parseCallGraph, parseFlameGraph } from "../../src/protocol";

const frame = (parent: number, name: string, seconds: number, extra: Record<string, unknown> = {}) => ({
  parent,
  routine: name === "other" ? null : name.length,
  cycle: null,
  name,
  seconds,
  selfSeconds: 0,
  estimated: false,
  depth: 0,
  uri: name === "other" ? null : `file:///src/${name}.c`,
  line: 3,
  ...extra,
});

// main (2.0) -> work (1.5) -> parse (1.0, estimated) ; main -> other (0.5); spontaneous "init" (0.5)
const answer = {
  folder: "file:///w",
  generation: 4,
  totalSeconds: 2.5,
  minPercent: 0.1,
  truncated: false,
  frames: [
    frame(-1, "main", 2.0),
    frame(0, "work", 1.5, { selfSeconds: 0.5 }),
    frame(1, "parse", 1.0, { estimated: true, selfSeconds: 1.0, routine: 99 }),
    frame(0, "other", 0.5, { selfSeconds: 0.5 }),
    frame(-1, "init", 0.5, { selfSeconds: 0.5 }),
    frame(4, "parse", 0.0, { routine: 99 }),
  ],
};

test("the answer is shape-checked; depths come from the parents", () => {
  const g = parseFlameGraph(answer);
  assert.ok(g);
  assert.deepEqual(g.frames.map((f) => f.depth), [0, 1, 2, 1, 0, 1]);
  assert.equal(parseFlameGraph(null), undefined);
  assert.equal(parseFlameGraph({ frames: [frame(0, "self-parent", 1)] }), undefined); // parent not before it
  assert.equal(parseFlameGraph({ frames: [{ parent: -1 }] }), undefined);
});

test("layout: roots span the width, children sit inside their parent, zero-width frames left out", () => {
  const g = parseFlameGraph(answer)!;
  const placed = layout(g);
  const at = new Map(placed.map((p) => [p.index, p]));
  assert.equal(at.get(0)!.x0, 0);
  assert.equal(at.get(4)!.x1, 1);
  assert.ok(Math.abs(at.get(0)!.x1 - 0.8) < 1e-12);
  assert.ok(Math.abs(at.get(1)!.x1 - 0.6) < 1e-12 && at.get(1)!.row === 1);
  assert.ok(Math.abs(at.get(3)!.x0 - 0.6) < 1e-12 && Math.abs(at.get(3)!.x1 - 0.8) < 1e-12);
  assert.ok(!at.has(5));
  // frames under a minimum width are left out, with their children
  assert.deepEqual(layout(g, -1, 0.3).map((p) => p.index), [0, 1, 2]);
});

test("zoom: the frame takes the width, its ancestors above it, nothing else", () => {
  const g = parseFlameGraph(answer)!;
  const placed = layout(g, 1);
  assert.deepEqual(placed.map((p) => [p.index, p.x0, p.x1, p.row]), [
    [0, 0, 1, 0],
    [1, 0, 1, 1],
    [2, 0, 1.0 / 1.5, 2],
  ]);
});

test("search, tooltips and the frames' HTML", () => {
  const g = parseFlameGraph(answer)!;
  assert.deepEqual([...search(g, "PARS")], [2, 5]);
  assert.equal(search(g, "  ").size, 0);
  assert.equal(routineSeconds(g, g.frames[2]), 1.0);
  assert.match(frameTooltip(g, 2), /Estimate: a routine on this path has several callers/);
  assert.match(frameTooltip(g, 1), /Exact: every routine on this path/);
  assert.match(frameTooltip(g, 3), /folded into one frame/);
  // a cycle's frame opened into its members (the server's `cycleMember`): their split is the estimate
  const cyc = parseFlameGraph({
    ...answer,
    frames: [
      frame(-1, "main", 2.0),
      { ...frame(0, "<cycle 1 as a whole>", 1.5), routine: null, cycle: 1 },
      frame(1, "expr", 1.0, { estimated: true, cycleMember: 1 }),
      frame(2, "number", 0.5, { estimated: true }),
    ],
  });
  assert.ok(cyc);
  assert.equal(cyc.frames[2].cycleMember, 1);
  assert.match(frameTooltip(cyc, 2), /Estimate: a member of cycle 1/);
  assert.match(frameTooltip(cyc, 3), /Estimate: below a member of cycle 1/);
  assert.match(frameTooltip(cyc, 1), /Exact: every routine/);
  const views = new Map(frameViews(g, layout(g), search(g, "parse")).map((v) => [v.index, v]));
  assert.equal(views.get(2)?.className, "frame estimated match");
  assert.equal(views.get(2)?.source, "parse.c:4");
  assert.equal(views.get(3)?.className, "frame other");
  assert.deepEqual([views.get(3)?.left, views.get(3)?.width, views.get(3)?.top], ["60.0000%", "20.0000%", "18px"]);
});

test("butterfly: callers above, callees below, exact call counts, estimates marked", () => {
  const node = (id: number, calls: number) => ({ id, name: `f${id}`, displayName: `f${id}`, selfSeconds: 0.1, totalSeconds: 1, percent: 10, selfPercent: 1, calls, recursiveCalls: 0, cycle: null, uri: null, line: null });
  const g = parseCallGraph({
    folder: "file:///w", generation: 1, center: 2, depth: 1, nodes: [node(1, 0), node(2, 30), node(3, 40), node(4, 10)],
    edges: [
      { caller: 1, callee: 2, calls: 10, seconds: 0.3, percent: 3, inCycle: false, estimated: true },
      { caller: 4, callee: 2, calls: 20, seconds: 0.6, percent: 6, inCycle: false, estimated: true },
      { caller: 2, callee: 3, calls: 40, seconds: 0.5, percent: 5, inCycle: false, estimated: false },
    ],
  })!;
  const b = butterfly(g)!;
  assert.deepEqual(b.callers.map((r) => [r.name, r.calls, r.estimated]), [["f4", "20/30", true], ["f1", "10/30", true]]);
  assert.deepEqual(b.callees.map((r) => [r.name, r.calls, r.estimated]), [["f3", "40/40", false]]);
  const html = butterflyHtml(b);
  assert.ok(html.indexOf("Callers of f2") < html.indexOf("f4 · 20/30 calls") && html.indexOf("Callees") < html.indexOf("f3 · 40/40"));
  assert.match(html, /f4 · 20\/30 calls · 0\.60 s \(est\.\)/);
  assert.doesNotMatch(html, /style=/); // the webview's CSP refuses inline styles
  assert.match(html, /data-width="60\.00"/);
});

test("butterfly while the server's certainty is pending: rows neither hatched nor called exact", () => {
  const node = (id: number, calls: number) => ({ id, name: `f${id}`, displayName: `f${id}`, selfSeconds: 0.1, totalSeconds: 1, percent: 10, selfPercent: 1, calls, recursiveCalls: 0, cycle: null, uri: null, line: null });
  const g = parseCallGraph({
    folder: "file:///w", generation: 1, center: 2, depth: 1, nodes: [node(1, 0), node(2, 10)], certaintyPending: true,
    edges: [{ caller: 1, callee: 2, calls: 10, seconds: 0.3, percent: 3, inCycle: false, estimated: null }],
  })!;
  const b = butterfly(g)!;
  assert.deepEqual(b.callers.map((r) => r.estimated), [null]);
  const html = butterflyHtml(b);
  assert.doesNotMatch(html, /estimated|\(est\.\)|\(exact\)/);
  assert.match(html, /marks pending/);
});
