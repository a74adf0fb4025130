// The call graph panel's pure parts: the server's answer checked, DOT generation (escaping, colours,
// clusters), the webview's HTML and Content-Security-Policy; the DOT is laid out by the library the
// panel bundles (@viz-js/viz, Graphviz in WebAssembly) to check that Graphviz accepts it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { callsText, dotString, edgeLabel, nodeLabel, ramp, shortName, summary, toDot } from "../../src/callGraphDot";
import { type CallGraph, parseCallGraph } from "../../src/protocol";
import { contentSecurityPolicy, panelHtml } from "../../src/callGraphHtml";

const node = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  name: `f${id}`,
  displayName: `f${id}()`,
  selfSeconds: 0.1 * id,
  totalSeconds: 0.2 * id,
  percent: 10 * id,
  selfPercent: 5 * id,
  calls: id,
  recursiveCalls: 0,
  cycle: null,
  uri: `file:///src/f${id}.c`,
  line: id,
  ...extra,
});

const answer = {
  folder: "file:///w",
  generation: 3,
  center: 2,
  depth: 2,
  nodeThreshold: 0,
  edgeThreshold: 0,
  totalSeconds: 2.5,
  prunedNodes: 0,
  prunedEdges: 0,
  nodes: [
    node(1, { calls: 0 }),
    node(2),
    node(3, { cycle: 1, displayName: 'operator"" _q(char const*, "x\\y")', uri: null, line: null }),
    node(4, { cycle: 1, recursiveCalls: 2 }),
  ],
  edges: [
    { caller: 1, callee: 2, calls: 400, seconds: 1.2, percent: 48, inCycle: false },
    { caller: 2, callee: 3, calls: 7, seconds: 0.5, percent: 20, inCycle: false },
    { caller: 3, callee: 4, calls: 9, seconds: 0, percent: 0, inCycle: true },
    { caller: 4, callee: 3, calls: 1, seconds: 0, percent: 0, inCycle: true },
    { caller: 9, callee: 3, calls: 1, seconds: 0, percent: 0, inCycle: false },
  ],
  cycles: [{ number: 1, members: [3, 4] }],
};

const parsed = (): CallGraph => {
  const g = parseCallGraph(answer);
  assert.ok(g);
  return g;
};

test("parseCallGraph: null and malformed answers are no graph; edges to unknown nodes are dropped", () => {
  assert.equal(parseCallGraph(null), undefined);
  assert.equal(parseCallGraph({ nodes: [] }), undefined);
  assert.equal(parseCallGraph({ nodes: [{ id: "x", name: "f" }], edges: [] }), undefined);
  const g = parsed();
  assert.equal(g.nodes.length, 4);
  assert.equal(g.edges.length, 4);
  assert.equal(g.nodes[2].uri, null);
  assert.equal(g.nodes[0].cycle, null);
  assert.equal(g.nodes[3].cycle, 1);
});

test("ramp: the dot export's colours (blue -> red by weight), clamped", () => {
  // gmonlens.output.dot.ramp(0, 0.25, 0.5, 0.75, 1)
  assert.deepEqual([0, 0.25, 0.5, 0.75, 1].map(ramp), ["#0d0d73", "#0c9393", "#0ab60a", "#dada06", "#ff0000"]);
  assert.equal(ramp(-1), ramp(0));
  assert.equal(ramp(7), ramp(1));
  assert.equal(ramp(Number.NaN), ramp(0));
});

test("dotString escapes quotes, backslashes, line breaks and control characters", () => {
  assert.equal(dotString('a"b\\c'), 'a\\"b\\\\c');
  assert.equal(dotString("a\nb\r\nc"), "a\\nb\\nc");
  assert.equal(dotString("a\tb\u0000"), "a b ");
});

test("labels: figures as gprof prints them, long names shortened in the middle", () => {
  const g = parsed();
  assert.equal(nodeLabel(g.nodes[1]), "f2()\n20.00% · 0.40 s\n(self 10.00% · 0.20 s)\n2×");
  assert.equal(nodeLabel(g.nodes[0]), "f1()\n10.00% · 0.20 s\n(self 5.00% · 0.10 s)");
  assert.equal(callsText(4, 2), "4+2×");
  assert.equal(callsText(0, 2), "2×");
  assert.equal(edgeLabel(g.edges[0]), "1.20 s (48.00%)\n400×");
  assert.equal(edgeLabel(g.edges[2]), "9×");
  assert.equal(edgeLabel({ ...g.edges[0], estimated: true }), "≈ 1.20 s (48.00%)\n400×");
  assert.equal(edgeLabel({ ...g.edges[0], estimated: false }), "1.20 s (48.00%) exact\n400×");
  const marked = parseCallGraph({ ...answer, edges: [{ ...answer.edges[0], estimated: true }] });
  assert.equal(marked?.edges[0].estimated, true);
  const long = "std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>(iterator, int const&)";
  const s = shortName(long);
  assert.equal(s.length, 60);
  assert.ok(s.startsWith("std::vector<int") && s.endsWith("int const&)") && s.includes("…"));
});

test("toDot: coloured nodes with ids, the centre outlined, cycles as clusters, cycle calls dashed", () => {
  const dot = toDot(parsed());
  assert.match(dot, /^digraph gmonlens \{/);
  assert.match(dot, /r2 \[id="r2", label="f2\(\)\\n20\.00% · 0\.40 s\\n\(self 10\.00% · 0\.20 s\)\\n2×", fillcolor="#0c738d"/);
  assert.match(dot, /r2 \[[^\]]*penwidth=3/);
  assert.doesNotMatch(dot, /r1 \[[^\]]*penwidth=3/);
  const cluster = dot.slice(dot.indexOf("subgraph cluster_cycle1"), dot.indexOf("  }\n"));
  assert.match(cluster, /label="<cycle 1>"/);
  assert.match(cluster, /r3 \[/);
  assert.match(cluster, /r4 \[/);
  assert.doesNotMatch(cluster, /r2 \[/);
  assert.match(dot, /r3 \[id="r3", label="operator\\"\\" _q\(char const\*, \\"x\\\\y\\"\)/);
  assert.match(dot, /r1 -> r2 \[label="1\.20 s \(48\.00%\)\\n400×", color="#0ab317"[^\]]*penwidth=2\.18/);
  assert.match(dot, /r3 -> r4 \[label="9×"[^\]]*style=dashed/);
  assert.doesNotMatch(dot, /r9/);
});

test("summary says what is shown and what the thresholds left out", () => {
  const g = parsed();
  assert.equal(summary(g), "around f2(), depth 2 · 4 routines, 4 calls · total 2.50 s");
  const whole = { ...g, center: null, depth: null, prunedNodes: 12, prunedEdges: 30, nodeThreshold: 0.5, edgeThreshold: 0.1 };
  assert.equal(summary(whole), "whole program · 4 routines, 4 calls · total 2.50 s · 12 routines and 30 calls below 0.5% / 0.1% not shown");
});

test("Graphviz (the bundled @viz-js/viz) lays the DOT out: every node and the cluster in the SVG", async () => {
  const { instance } = await import("@viz-js/viz");
  const viz = await instance();
  const svg = viz.renderString(toDot(parsed()), { format: "svg" });
  for (const id of ["r1", "r2", "r3", "r4", "cycle1"]) {
    assert.match(svg, new RegExp(`<g id="${id}" class="(node|cluster)"`), id);
  }
  assert.match(svg, /operator&quot;&quot; _q\(char const\*, &quot;x\\y&quot;\)/);
  assert.match(svg, /&lt;cycle 1&gt;/);
});

test("webview HTML: strict CSP (nonce script, wasm, no network), the nonce on the only script", () => {
  const csp = contentSecurityPolicy({ cspSource: "https://x.vscode-cdn.net", nonce: "abc" });
  assert.equal(
    csp,
    "default-src 'none'; script-src 'nonce-abc' 'wasm-unsafe-eval'; style-src https://x.vscode-cdn.net; img-src https://x.vscode-cdn.net data:; font-src https://x.vscode-cdn.net",
  );
  assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'|connect-src|\*/);
  const html = panelHtml({ cspSource: "https://x.vscode-cdn.net", nonce: "abc", scriptUri: "https://x/a.js?a=1&b=2", styleUri: "https://x/s.css" });
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-abc'/);
  assert.equal([...html.matchAll(/<script/g)].length, 1);
  // Controls start disabled: the script enables them once its listeners are there.
  for (const id of ["depth-down", "depth-up", "whole", "pinned", "fit"]) {
    assert.match(html, new RegExp(`id="${id}"[^>]* disabled>`), id);
  }
  assert.match(html, /<script nonce="abc" src="https:\/\/x\/a\.js\?a=1&amp;b=2"><\/script>/);
});

test("certaintyPending: no edge marked (estimated null), the summary says the marks are pending", () => {
  const pending = parseCallGraph({
    ...answer,
    certaintyPending: true,
    edges: answer.edges.map((e: Record<string, unknown>) => ({ ...e, estimated: null })),
  })!;
  assert.equal(pending.certaintyPending, true);
  assert.ok(pending.edges.every((e) => e.estimated === undefined));
  assert.equal(edgeLabel(pending.edges[0]), "1.20 s (48.00%)\n400×"); // neither ≈ nor exact
  assert.equal(summary(pending), "around f2(), depth 2 · 4 routines, 4 calls · total 2.50 s · estimate marks pending");
  assert.equal(parsed().certaintyPending, false);
});
