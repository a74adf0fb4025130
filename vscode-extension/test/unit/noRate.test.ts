// A profile without a sampling rate (a histogram whose rate is 0): the server sends every figure in
// seconds as null, since seconds cannot be computed. Each view, fed the server's real answers
// (protocol/examples) with their seconds nulled, says "n/a" where it showed seconds, never "0.00 s"
// (which reads as "measured: nothing"), and says why where it draws by time; fed the answers as they
// are, it shows the seconds as before.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { edgeLabel, nodeLabel, nodeTooltip, summary, toDot } from "../../src/callGraphDot";
import { callTooltip, hintLabel, hinted } from "../../src/disasm";
import { barBasis, butterfly, butterflyHtml, flameSummary, frameTooltip, layout, routineSeconds } from "../../src/flameGraph";
import { hottestItems } from "../../src/hottest";
import { hoverText } from "../../src/lineheat";
import {
  type CallGraph,
  type FlameGraph,
  type Listing,
  parseCallGraph,
  parseFlameGraph,
  parseHottest,
  parseLineHeat,
  parseListing,
  parseRecording,
  parseStatus,
  parseTests,
} from "../../src/protocol";
import { recordNotices } from "../../src/recordPlan";
import { statusView } from "../../src/status";
import { testItems } from "../../src/testPick";
import { NO_RATE, NO_TIME, seconds, secondsFigure } from "../../src/units";

const EXAMPLES = path.join(__dirname, "..", "..", "..", "..", "protocol", "examples");

function example(name: string): any {
  return JSON.parse(fs.readFileSync(path.join(EXAMPLES, `${name}.json`), "utf8"));
}

/** The example with every figure in seconds (`seconds`, `*Seconds`) null, as the server sends it
 * for a profile without a sampling rate. */
function withoutRate(name: string): any {
  const nulled = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(nulled)
      : typeof v === "object" && v !== null
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, /^seconds$|Seconds$/.test(k) && typeof x === "number" ? null : nulled(x)]))
        : v;
  return nulled(example(name));
}

/** A figure in seconds as the views print one ("0.00 s", "1.60 s", "0.12 ± 0.03 s"). */
const SECONDS = /\d\.\d\d s\b|\d\.\d\d ± /;

function noSeconds(text: string, what: string): void {
  assert.doesNotMatch(text, SECONDS, `${what} shows seconds the profile does not have: ${text}`);
  assert.ok(text.includes(NO_TIME), `${what} does not say ${NO_TIME}: ${text}`);
}

test("units: two decimals and the unit; n/a for null, never 0.00", () => {
  assert.equal(seconds(null), "n/a");
  assert.equal(seconds(0), "0.00 s");
  assert.equal(seconds(1.234), "1.23 s");
  assert.equal(secondsFigure(null), "n/a");
  assert.equal(secondsFigure(0.005), "0.01");
});

describe("the status bar", () => {
  test("no rate: n/a, and why in the tooltip", () => {
    const view = statusView(parseStatus(withoutRate("gmonlens.status.params")));
    assert.match(view.text, /^\$\(flame\) gprof: n\/a · 6 routines/);
    assert.ok(view.tooltip.includes(`Seconds n/a: ${NO_RATE}.`), view.tooltip);
    assert.ok(view.tooltip.startsWith("gmonlens: profile loaded: n/a · 6 routines"), view.tooltip);
    const healthy = statusView({ ...parseStatus(withoutRate("gmonlens.status.params"))!, health: undefined, baseline: undefined });
    assert.equal(healthy.text, "$(flame) gprof: n/a · 6 routines"); // no warning mark of its own: the server's health says
  });
  test("with a rate: as before", () => {
    const view = statusView(parseStatus(example("gmonlens.status.params")));
    assert.match(view.text, /^\$\(flame\) gprof: 2\.27 s · 6 routines · ≈ \+0\.30 s/);
    assert.ok(!view.tooltip.includes(NO_RATE));
  });
});

describe("the hottest routines", () => {
  test("no rate: self and total n/a, the percent and calls kept", () => {
    const items = hottestItems(parseHottest(withoutRate("command.gmonlens.hottest.result")), "self", []);
    assert.equal(items[0].description, "70.5% · self n/a · total n/a · 5000 calls");
    items.forEach((i) => noSeconds(i.description, i.label));
  });
  test("with a rate: as before", () => {
    const items = hottestItems(parseHottest(example("command.gmonlens.hottest.result")), "total", []);
    assert.equal(items[0].description, "70.5% · total 1.60 s · self 1.60 s · 5000 calls");
    assert.equal(items[5].description, "48.5% · total 1.10 s · self 0.00 s");
  });
});

describe("the line heat hover", () => {
  test("no rate: n/a, its samples, and why", () => {
    const heat = parseLineHeat(withoutRate("gmonlens.lineHeat.result"));
    assert.ok(heat && heat.lines.length > 0);
    for (const l of heat.lines) {
      const text = hoverText(l);
      noSeconds(text, `line ${l.line}`);
      assert.ok(text.startsWith("**Line heat**: n/a, "), text);
      assert.ok(text.includes(`${l.samples?.toFixed(0)} samples; seconds n/a: ${NO_RATE}`), text);
    }
    const two = hoverText({ ...heat.lines[0], routines: [{ name: "a", seconds: null }, { name: "b", seconds: null }] });
    assert.ok(two.includes("- a: n/a\n- b: n/a"), two);
  });
  test("with a rate: as before", () => {
    const heat = parseLineHeat(example("gmonlens.lineHeat.result"));
    const text = hoverText(heat!.lines[0]);
    assert.ok(text.startsWith("**Line heat**: 0.12 s, 5.3% of the total time, in `leaf`"), text);
    assert.ok(text.includes("0.12 ± 0.03 s from 12 samples (± one standard error of the sampling)"), text);
  });
});

describe("the call graph panel", () => {
  const nulled = (): CallGraph => parseCallGraph(withoutRate("gmonlens.callGraph.result"))!;
  test("no rate: labels, tooltips and the summary say n/a; colours and widths still by percent", () => {
    const g = nulled();
    const real = parseCallGraph(example("gmonlens.callGraph.result"))!;
    g.nodes.forEach((n) => noSeconds(nodeLabel(n), n.name));
    g.nodes.forEach((n) => noSeconds(nodeTooltip(n), n.name));
    g.edges.filter((e) => !e.inCycle).forEach((e) => noSeconds(edgeLabel(e), `${e.caller} -> ${e.callee}`));
    assert.ok(nodeLabel(g.nodes[0]).includes("70.48% · n/a\n(self 70.48% · n/a)"), nodeLabel(g.nodes[0]));
    noSeconds(summary(g), "summary");
    assert.ok(summary(g).includes(`total n/a (${NO_RATE}; colours and widths by percent)`), summary(g));
    const strip = (dot: string) => dot.replace(/label="[^"]*"/g, "");
    assert.equal(strip(toDot(g)), strip(toDot(real)));
    assert.doesNotMatch(toDot(g), SECONDS);
  });
  test("with a rate: as before", () => {
    const g = parseCallGraph(example("gmonlens.callGraph.result"))!;
    assert.equal(nodeLabel(g.nodes[0]), "leaf\n70.48% · 1.60 s\n(self 70.48% · 1.60 s)\n5000×");
    assert.ok(summary(g).endsWith("total 2.27 s"), summary(g));
  });
});

describe("the flame graph", () => {
  const nulled = (): FlameGraph => parseFlameGraph(withoutRate("gmonlens.flameGraph.result"))!;
  test("no rate: nothing drawn, the summary says why, tooltips say n/a", () => {
    const g = nulled();
    assert.ok(g.frames.length > 0);
    assert.deepEqual(layout(g), []);
    assert.deepEqual(layout(g, 1).map((p) => p.index), [0, 1]); // a zoom shows its chain, nothing below
    const text = flameSummary(g, 0);
    noSeconds(text, "summary");
    assert.ok(text.includes(`total n/a (${NO_RATE}: the frames have no width to draw)`), text);
    g.frames.forEach((_f, i) => noSeconds(frameTooltip(g, i), g.frames[i].name));
    assert.ok(frameTooltip(g, 0).includes(`n/a on this path, self n/a (${NO_RATE})`), frameTooltip(g, 0));
    assert.equal(routineSeconds(g, g.frames[0]), null);
  });
  test("with a rate: as before", () => {
    const g = parseFlameGraph(example("gmonlens.flameGraph.result"))!;
    assert.ok(layout(g).length > 0);
    assert.ok(frameTooltip(g, 0).includes("1.17 s on this path (51.5% of 2.27 s), self 0.02 s"), frameTooltip(g, 0));
    assert.ok(flameSummary(g, 3).includes("total 2.27 s · "), flameSummary(g, 3));
    assert.ok(!flameSummary(g, 3).includes(NO_RATE));
  });
});

describe("the butterfly", () => {
  const widths = (html: string) => [...html.matchAll(/data-width="([\d.]+)"/g)].map((m) => Number(m[1]));
  test("no rate: n/a, bars by percent (the same samples: the same widths), said in the head", () => {
    const real = butterfly(parseCallGraph(example("gmonlens.callGraph.result"))!)!;
    const b = butterfly(parseCallGraph(withoutRate("gmonlens.callGraph.result"))!)!;
    assert.deepEqual(b.callees.map((r) => r.name), real.callees.map((r) => r.name));
    assert.equal(barBasis(b), "percent");
    assert.equal(barBasis(real), "seconds");
    const html = butterflyHtml(b);
    noSeconds(html, "butterfly");
    assert.ok(html.includes("main · n/a total, self n/a"), html);
    assert.ok(html.includes(`(bars: share of its time in samples; ${NO_RATE})`), html);
    const ours = widths(html);
    const theirs = widths(butterflyHtml(real));
    assert.equal(ours.length, theirs.length);
    ours.forEach((w, i) => assert.ok(Math.abs(w - theirs[i]) < 0.05, `${w} vs ${theirs[i]}`));
    assert.ok(ours.some((w) => w > 0 && w < 100));
  });
  test("no rate and no samples: bars by share of the calls, heaviest first by calls", () => {
    const raw = withoutRate("gmonlens.callGraph.result");
    raw.nodes.forEach((n: { percent: number }) => (n.percent = 0));
    raw.edges.forEach((e: { percent: number }) => (e.percent = 0));
    raw.center = 3; // ping: called by main (1 of 6 calls) and pong (5 of 6)
    const b = butterfly(parseCallGraph(raw)!)!;
    assert.equal(barBasis(b), "calls");
    assert.deepEqual(b.callers.map((r) => r.calls), ["5/6", "1/6"]);
    assert.deepEqual(widths(butterflyHtml(b)).slice(0, 2), [83.33, 16.67]);
    assert.ok(butterflyHtml(b).includes("(bars: share of the calls;"));
  });
});

describe("the disassembly", () => {
  const nulled = (): Listing => parseListing(withoutRate("gmonlens.disassembly.result"))!;
  test("no rate: hints and call tooltips say n/a; the instructions with samples still get hints", () => {
    const listing = nulled();
    const real = parseListing(example("gmonlens.disassembly.result"))!;
    assert.deepEqual(
      listing.instructions.filter(hinted).map((i) => i.line),
      real.instructions.filter(hinted).map((i) => i.line),
    );
    assert.ok(listing.instructions.some(hinted));
    for (const i of listing.instructions.filter(hinted)) {
      noSeconds(hintLabel(i), `line ${i.line}`);
    }
    const calls = listing.instructions.flatMap((i) => i.calls);
    assert.ok(calls.length > 0);
    assert.equal(callTooltip(calls[0]), `${calls[0].callee}: ${calls[0].count} calls, n/a (gprof's estimate)`);
    assert.equal(hintLabel(listing.instructions.find(hinted)!), "n/a · 8.3%");
  });
  test("with a rate: as before", () => {
    const real = parseListing(example("gmonlens.disassembly.result"))!;
    assert.equal(hintLabel(real.instructions.find(hinted)!), "0.05 s · 8.3%");
    const call = real.instructions.flatMap((i) => i.calls)[0];
    assert.equal(callTooltip(call), `${call.callee}: ${call.count} calls, ~1.60 s (gprof's estimate)`);
  });
});

describe("the tests pick and the recording's notice", () => {
  test("no rate: n/a profiled; a test without a binary still has no time", () => {
    const [listing] = parseTests(withoutRate("command.gmonlens.tests.result"));
    const items = testItems(listing);
    assert.deepEqual(items.slice(2).map((i) => i.description), ["n/a profiled · passed · 0.40 s wall", "n/a profiled · failed · 1.20 s wall"]);
    const [real] = parseTests(example("command.gmonlens.tests.result"));
    assert.equal(testItems(real)[2].description, "2.27 s profiled · failed · 1.20 s wall");
  });
  test("the recording: seconds n/a, or its seconds", () => {
    const text = (raw: unknown) => recordNotices(parseRecording(raw)!).find((n) => n.text.startsWith("gmonlens: recorded"))!.text;
    assert.ok(text(withoutRate("gmonlens.record.result")).includes("of prog, seconds n/a (no sampling rate); hottest: "));
    assert.ok(text(example("gmonlens.record.result")).includes("of prog, 4.54 s; hottest: "));
  });
});
