import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type ServerStatus, parseStatus, pickStatus, problemWord, statusView } from "../../src/status";

describe("parseStatus", () => {
  test("valid", () =>
    assert.deepEqual(parseStatus({ state: "loaded", totalSeconds: 1.5, routines: 12, folder: "file:///w", extra: 1 }), {
      state: "loaded",
      message: undefined,
      totalSeconds: 1.5,
      routines: 12,
      folder: "file:///w",
    }));
  test("invalid", () => {
    assert.equal(parseStatus(null), undefined);
    assert.equal(parseStatus({ state: "weird" }), undefined);
    assert.equal(parseStatus({ state: "loaded", totalSeconds: "x" })?.totalSeconds, undefined);
  });
});

describe("statusView", () => {
  test("loaded shows seconds with two decimals and routines", () => {
    const v = statusView({ state: "loaded", totalSeconds: 0.4, routines: 7 });
    assert.equal(v.text, "$(flame) gprof: 0.40 s · 7 routines");
    assert.equal(v.kind, "normal");
  });
  test("one routine", () => assert.match(statusView({ state: "loaded", routines: 1 }).text, /1 routine$/));
  test("loading spins", () => assert.equal(statusView({ state: "loading" }).text, "$(sync~spin) gprof: loading"));
  test("problem in a word, full message in the tooltip", () => {
    const v = statusView({ state: "problem", message: "gmon.out: no such file" }, "proj");
    assert.equal(v.text, "$(warning) gprof: no profile");
    assert.match(v.tooltip, /gmonlens \(proj\): gmon.out: no such file/);
    assert.equal(v.kind, "warning");
  });
  test("nothing yet", () => assert.match(statusView(undefined).tooltip, /starting/));
});

describe("problemWord", () => {
  const cases: [string, string][] = [
    ["no gmon.out, gmon.out.* or gmon.sum found", "no profile"],
    ["/w/calc: the binary is newer than the profile", "stale"],
    ["the profile does not fit /w/calc (histogram range)", "mismatch"],
    ["gmon.out: truncated histogram record at offset 20", "broken profile"],
    ["no executable found for the profile", "no binary"],
    ["something odd", "problem"],
  ];
  for (const [message, word] of cases) {
    test(message, () => assert.equal(problemWord(message), word));
  }
});

describe("pickStatus", () => {
  const a: ServerStatus = { state: "loaded", folder: "file:///a" };
  const b: ServerStatus = { state: "problem", folder: "file:///b" };
  const m = new Map([
    ["file:///a", a],
    ["file:///b", b],
  ]);
  test("the active folder's", () => assert.equal(pickStatus(m, "file:///b"), b));
  test("else the first", () => assert.equal(pickStatus(m, undefined), a));
  test("a folderless status wins when there is no match", () => {
    const n: ServerStatus = { state: "idle" };
    assert.equal(pickStatus(new Map([["", n], ["file:///a", a]]), "file:///c"), n);
  });
  test("empty", () => assert.equal(pickStatus(new Map(), "file:///a"), undefined));
});
