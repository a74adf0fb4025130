import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { changeItems } from "../../src/changes";
import { parseChanges, parseStatus } from "../../src/protocol";
import { baselineText, statusView } from "../../src/status";

const answer = [
  { name: "slow_me", kind: "regression", status: "matched", change: "▲ +0.38 s (+237%)", selfBefore: 0.16, selfAfter: 0.54,
    totalBefore: 0.16, totalAfter: 0.54, callsBefore: 10, callsAfter: 10, uri: "file:///w/src/a.c", line: 11 },
  { name: "main", kind: "regression", status: "matched", change: "▲ total +0.33 s (+79%)", selfBefore: 0, selfAfter: 0,
    totalBefore: 0.42, totalAfter: 0.75, callsBefore: 0, callsAfter: 0, uri: "file:///w/src/a.c", line: 30 },
  { name: "helper", kind: "improvement", change: "▼ -0.07 s (-100%)", uri: null, line: null },
  { name: "old", kind: "gone", change: "gone since baseline", selfBefore: 0.2 },
  { name: 3, kind: "regression" },
  { name: "x", kind: "weird" },
];

describe("changes", () => {
  test("parse keeps the server's order and drops malformed entries", () => {
    const got = parseChanges(answer);
    assert.deepEqual(got.map((c) => c.name), ["slow_me", "main", "helper", "old"]);
    assert.equal(got[2].uri, undefined);
    assert.equal(got[0].line, 11);
    assert.deepEqual(parseChanges({}), []);
  });
  test("items are grouped under headings, largest first within a group", () => {
    const items = changeItems(parseChanges(answer), ["file:///w"]);
    assert.deepEqual(items.map((i) => (i.separator ? `# ${i.label}` : i.label)), [
      "# Slower (beyond noise)", "slow_me", "main", "# Faster (beyond noise)", "helper", "# Gone since the baseline", "old",
    ]);
    assert.equal(items[1].detail, "src/a.c:12");
    assert.match(items[1].description, /^▲ \+0\.38 s \(\+237%\) · self 0\.16 → 0\.54 s · total 0\.16 → 0\.54 s · calls 10 → 10$/);
    assert.equal(items[6].detail, "not in the current binary");
  });
});

describe("baseline in the status", () => {
  const status = parseStatus({
    state: "loaded", totalSeconds: 0.75, routines: 5,
    baseline: { label: "pinned", totalBefore: 0.42, totalAfter: 0.75, deltaSeconds: 0.33, percent: 78.6, verdict: "up",
      regressions: 2, improvements: 0 },
  });
  test("parsed", () => assert.equal(status?.baseline?.verdict, "up"));
  test("the status bar shows the total change and a click lists the changes", () => {
    const v = statusView(status);
    assert.equal(v.text, "$(flame) gprof: 0.75 s · 5 routines · ▲ +0.33 s (+79%)");
    assert.equal(v.changes, true);
    assert.match(v.tooltip, /Against the baseline \(pinned\): 0\.42 s -> 0\.75 s.*2 slower, 0 faster/);
  });
  test("noise is marked ≈ without a percent", () => {
    assert.equal(baselineText({ label: "", totalBefore: 1, totalAfter: 0.99, deltaSeconds: -0.01, percent: -1, verdict: "noise",
      regressions: 0, improvements: 0 }), "≈ -0.01 s");
  });
  test("a malformed baseline is ignored", () => {
    const s = parseStatus({ state: "loaded", baseline: { verdict: "maybe" } });
    assert.equal(s?.baseline, undefined);
    assert.equal(statusView(s).changes, undefined);
  });
});
