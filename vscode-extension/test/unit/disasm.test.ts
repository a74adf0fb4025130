import { strict as assert } from "node:assert";
import { test } from "node:test";
import { callSpan, hintLabel, instructionsByLevel, listingLinesOf, sourceOfLine } from "../../src/disasm";
import { parseListing } from "../../src/protocol";

const RESULT = {
  uri: "gmonlens-disasm:/work.s?folder=x&routine=work",
  displayName: "work",
  selfSeconds: 0.3,
  text: "work\n...\n",
  instructions: [
    { line: 6, address: 4489, seconds: 0.0, percent: 0, path: "/ws/main.c", sourceLine: 15, calls: [] },
    { line: 7, address: 4493, seconds: 0.27, percent: 90, path: "/ws/main.c", sourceLine: 15, calls: [] },
    {
      line: 9,
      address: 4500,
      seconds: 0.03,
      percent: 10,
      path: "/ws/main.c",
      sourceLine: 16,
      calls: [{ callee: "helper", count: 400, seconds: 0.12, path: "/ws/util.c", sourceLine: 3 }, { bad: 1 }],
    },
    { line: "x" },
  ],
  sources: [
    { line: 5, path: "/ws/main.c", sourceLine: 15 },
    { line: 8, path: "/ws/main.c", sourceLine: 16 },
  ],
};

test("parseListing validates the result", () => {
  const l = parseListing(RESULT);
  assert.ok(l);
  assert.equal(l.instructions.length, 3);
  assert.equal(l.instructions[2].calls.length, 1);
  assert.equal(parseListing(null), undefined);
  assert.equal(parseListing({ error: "no code" }), undefined);
});

test("heat levels, hints and cursor mapping", () => {
  const l = parseListing(RESULT)!;
  const levels = instructionsByLevel(l);
  assert.deepEqual(levels[3].map((i) => i.line), [7, 9]);
  assert.equal(hintLabel(l.instructions[1]), "0.27 s · 90.0%");
  assert.deepEqual(listingLinesOf(l, "/ws/main.c", 15), [5, 6, 7]);
  assert.deepEqual(sourceOfLine(l, 9), { path: "/ws/main.c", line: 16 });
  assert.deepEqual(sourceOfLine(l, 8), { path: "/ws/main.c", line: 16 });
  assert.deepEqual(callSpan("  call 1139 <helper>  # helper: 400 calls, ~0.12 s", "helper"), [24, 30]);
});
