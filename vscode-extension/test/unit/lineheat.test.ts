import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { byLevel, hoverText, level } from "../../src/lineheat";
import { type FileHeat, parseLineHeat } from "../../src/protocol";

const line = (n: number, percent: number, routine = "work") => ({
  line: n,
  seconds: percent / 100,
  percent,
  routine,
  routines: [{ name: routine, seconds: percent / 100 }],
});

describe("parseLineHeat", () => {
  test("valid result", () => {
    const heat = parseLineHeat({ uri: "file:///a.c", totalSeconds: 1, lines: [line(3, 12.5)], extra: 1 });
    assert.deepEqual(heat, { uri: "file:///a.c", totalSeconds: 1, lines: [line(3, 12.5)] });
  });
  test("null (no profile) and junk are not heat", () => {
    assert.equal(parseLineHeat(null), undefined);
    assert.equal(parseLineHeat({ lines: [] }), undefined);
    assert.equal(parseLineHeat({ uri: "x", lines: "no" }), undefined);
  });
  test("malformed lines are skipped, missing routines tolerated", () => {
    const heat = parseLineHeat({
      uri: "u",
      lines: [{ line: -1, seconds: 1, percent: 1 }, { line: "2" }, null, { line: 4, seconds: 0.5, percent: 5 }],
    });
    assert.deepEqual(heat?.lines, [{ line: 4, seconds: 0.5, percent: 5, routine: "", routines: [] }]);
    assert.equal(heat?.totalSeconds, 0);
  });
});

describe("levels by share of the total", () => {
  const cases: [number, number][] = [
    [0, 0],
    [Number.NaN, 0],
    [0.01, 1],
    [0.99, 1],
    [1, 2],
    [2.9, 2],
    [3, 3],
    [9.99, 3],
    [10, 4],
    [100, 4],
  ];
  for (const [percent, want] of cases) {
    test(`${percent}% -> ${want}`, () => assert.equal(level(percent), want));
  }
  test("byLevel groups lines, unpainted lines dropped", () => {
    const heat: FileHeat = { uri: "u", totalSeconds: 1, lines: [line(1, 0), line(2, 0.5), line(3, 50), line(4, 4)] };
    assert.deepEqual(
      byLevel(heat).map((g) => g.map((l) => l.line)),
      [[2], [], [4], [3]],
    );
  });
});

describe("hoverText", () => {
  test("figures and routine", () => {
    const text = hoverText(line(7, 12.345));
    assert.match(text, /^\*\*Line heat\*\*: 0\.12 s, 12\.3% of the total time, in `work`/);
    assert.match(text, /not call-graph figures/);
    assert.doesNotMatch(text, /±/); // an older server's answer: nothing to say
    const sure = hoverText({ ...line(7, 12.345), samples: 4, errSeconds: 0.0617 });
    assert.match(sure, /0\.12 ± 0\.06 s from 4 samples \(± one standard error of the sampling\); ⚠ few samples: mostly noise\./);
    const parsed = parseLineHeat({ uri: "file:///a.c", totalSeconds: 1, lines: [{ line: 3, seconds: 0.5, percent: 50, routine: "w", routines: [], samples: 50, errSeconds: 0.0707 }] });
    assert.equal(parsed?.lines[0].samples, 50);
    assert.doesNotMatch(hoverText(parsed!.lines[0]), /few samples/);
  });
  test("every routine when the line is in several (inlined copies)", () => {
    const l = { ...line(1, 10), routines: [{ name: "a_b", seconds: 0.07 }, { name: "c", seconds: 0.03 }] };
    const text = hoverText(l);
    assert.match(text, /- a\\_b: 0\.07 s\n- c: 0\.03 s/);
  });
});
