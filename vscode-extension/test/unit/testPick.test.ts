// The `gmonlens.tests` answer as quick pick items (src/testPick.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TestsListing } from "../../src/protocol";
import { chosenText, testItems } from "../../src/testPick";

const listing: TestsListing = {
  folder: "file:///ws",
  suite: "/ws/gmonlens-test",
  mode: "test",
  selected: "Parser.Big",
  tests: [
    { name: "Parser.Small", status: "passed", duration: 0.1, seconds: 0.02, binary: "/ws/build/t" },
    { name: "Parser.Big", status: "failed", duration: 1.5, seconds: 0.81, binary: "/ws/build/t" },
    { name: "NoTime", status: "skipped" },
  ],
};

test("whole suite and as-found first, then the tests, costliest first", () => {
  const items = testItems(listing);
  assert.deepEqual(
    items.map((i) => i.label),
    ["$(layers) Whole suite", "$(search) As found", "$(error) Parser.Big", "$(pass) Parser.Small", "$(debug-step-over) NoTime"],
  );
  assert.deepEqual(items[2].choice, { kind: "test", name: "Parser.Big" });
  assert.equal(items[2].description, "0.81 s profiled · failed · 1.50 s wall");
  assert.equal(items[4].description, "no time profiled · skipped");
  assert.deepEqual(items.map((i) => i.picked), [false, false, true, false, false]);
  assert.deepEqual(items[0].choice, { kind: "suite" });
  assert.deepEqual(items[1].choice, { kind: "auto" });
});

test("the status bar's words", () => {
  assert.equal(chosenText(listing), "gmonlens: showing test Parser.Big");
  assert.equal(chosenText({ ...listing, mode: "suite" }), "gmonlens: showing the whole suite");
});
