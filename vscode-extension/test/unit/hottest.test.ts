import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { hottestItems, place } from "../../src/hottest";
import { parseHottest } from "../../src/protocol";

const answer = [
  { name: "eval", selfSeconds: 0.31, totalSeconds: 0.37, percent: 42, calls: "120", uri: "file:///ws/src/eval.c", line: 41 },
  { name: "lex", selfSeconds: 0.1, totalSeconds: 0.1, percent: 13.5, calls: 7, uri: null, line: null },
  { nope: 1 },
  "junk",
];

describe("hottest", () => {
  test("parse drops malformed entries and normalizes calls", () => {
    const r = parseHottest(answer);
    assert.equal(r.length, 2);
    assert.equal(r[1].calls, "7");
    assert.equal(r[1].uri, undefined);
    assert.deepEqual(parseHottest(null), []);
  });
  test("items by self and by total", () => {
    const [eval_, lex] = hottestItems(parseHottest(answer), "self", ["file:///ws"]);
    assert.equal(eval_.label, "eval");
    assert.equal(eval_.description, "42.0% · self 0.31 s · total 0.37 s · 120 calls");
    assert.equal(eval_.detail, "src/eval.c:42");
    assert.equal(lex.detail, "no source");
    const [byTotal] = hottestItems(parseHottest(answer), "total", ["file:///ws/"]);
    assert.equal(byTotal.description, "42.0% · total 0.37 s · self 0.31 s · 120 calls");
  });
  test("place outside the workspace shows the path", () =>
    assert.equal(place("file:///usr/include/my%20lib.h", 0, ["file:///ws"]), "/usr/include/my lib.h:1"));
});
