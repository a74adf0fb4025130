import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type ServerStatus, parseStatus } from "../../src/protocol";
import { pickStatus, problemWord, statusView } from "../../src/status";

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
    assert.equal(v.text, "$(warning) gprof: not found");
    assert.match(v.tooltip, /gmonlens \(proj\): gmon.out: no such file/);
    assert.equal(v.kind, "warning");
  });
  test("nothing yet", () => assert.match(statusView(undefined).tooltip, /starting/));
});

describe("problemWord", () => {
  const cases: [string, string][] = [
    ["/w: no gmon.out, gmon.out.* or gmon.sum here or in its build folders", "no profile"],
    ["/w/gmon.out.*: no file matches", "no profile"],
    ["/w/gmon.out: no such file", "not found"],
    ["/w/gmon.out: the binary /w/calc is newer than this profile (rebuilt since the run?)", "stale"],
    ["gmon.out: profile does not fit /w/calc: its histogram covers 0x1000-0x2000", "mismatch"],
    ["/w/gmon.out.2: incompatible with first gmon file", "mismatch"],
    ["/w/gmon.out: no executable in /w or its build folders fits this profile", "no binary"],
    ["/w/gmon.out: bad magic: not a GNU gmon.out file", "broken profile"],
    ["/w/gmon.out: found bad tag 9 at offset 20 (file corrupted?)", "broken profile"],
    ["/w/calc: not an ELF executable (bad magic)", "bad binary"],
    ["/w/calc: has no symbols (stripped binary?); gprof needs the symbol table", "bad binary"],
    ["/w: internal error: KeyError: 3", "internal error"],
    ["/home/me/format-tool/gmon.out: no such file", "not found"],
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

test("health: parsed from gmonlens/status, marked on the status bar and listed with its fix", () => {
  const s = parseStatus({
    state: "loaded",
    totalSeconds: 0.3,
    routines: 5,
    health: [{ code: "few_samples", message: "only 30 samples in the whole run", fix: "run longer" }, { code: 3 }],
  });
  assert.ok(s && s.health && s.health.length === 1);
  const v = statusView(s);
  assert.match(v.text, /\$\(warning\)$/);
  assert.match(v.tooltip, /⚠ only 30 samples in the whole run\. Fix: run longer\./);
  const healthy = statusView(parseStatus({ state: "loaded", totalSeconds: 0.3, routines: 5, health: [] }));
  assert.doesNotMatch(healthy.text, /warning/);
});
