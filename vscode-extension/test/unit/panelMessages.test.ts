// The call graph panel's message set (src/panelMessages.ts): each kind the webview posts is read as
// posted; others are not; values of the wrong type read as the panel always read them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type FromWebview, readFromWebview } from "../../src/panelMessages";

// one of each kind (the compiler holds this to the union: a kind added there must be added here)
const EACH: { [K in FromWebview["type"]]: Extract<FromWebview, { type: K }> } = {
  ready: { type: "ready" },
  open: { type: "open", node: "r12", centre: true },
  depth: { type: "depth", depth: 3 },
  whole: { type: "whole", whole: true },
  pinned: { type: "pinned", pinned: false },
  flameView: { type: "flameView", flame: true },
  openFrame: { type: "openFrame", frame: 4 },
  butterfly: { type: "butterfly", frame: 0 },
  openButterfly: { type: "openButterfly", node: "r3" },
};

test("every kind the webview posts is read as posted", () => {
  for (const message of Object.values(EACH)) {
    assert.deepEqual(readFromWebview(JSON.parse(JSON.stringify(message))), message);
  }
});

test("what is not one of them is not read", () => {
  for (const m of [null, undefined, 3, "ready", [], {}, { type: "graph", dot: "" }, { type: "Ready" }]) {
    assert.equal(readFromWebview(m), undefined, JSON.stringify(m));
  }
});

test("values of the wrong type read as the panel read them", () => {
  assert.deepEqual(readFromWebview({ type: "depth", depth: 99 }), { type: "depth", depth: 10 });
  assert.deepEqual(readFromWebview({ type: "depth", depth: "x" }), { type: "depth", depth: 0 });
  assert.deepEqual(readFromWebview({ type: "depth", depth: -2 }), { type: "depth", depth: 0 });
  assert.deepEqual(readFromWebview({ type: "whole", whole: "yes" }), { type: "whole", whole: false });
  assert.deepEqual(readFromWebview({ type: "open", node: 12 }), { type: "open", node: "12", centre: false });
});
