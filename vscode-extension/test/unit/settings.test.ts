import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type RawSettings, absolute, clientSettings, resolveVariables, serverSettings } from "../../src/settings";

const ctx = { folder: "/ws/proj", home: "/home/me" };
const set = (value: unknown) => ({ value, isSet: true });
const unset = (value: unknown) => ({ value, isSet: false });

describe("resolveVariables", () => {
  const cases: [string, string][] = [
    ["${workspaceFolder}/build/app", "/ws/proj/build/app"],
    ["${userHome}/x", "/home/me/x"],
    ["~/bin/app", "/home/me/bin/app"],
    ["~", "/home/me"],
    ["a~b", "a~b"],
    ["${env:OUT}/gmon.out", "/tmp/out/gmon.out"],
    ["${env:NOPE}x", "x"],
    ["${unknown}", "${unknown}"],
  ];
  for (const [input, want] of cases) {
    test(input, () => assert.equal(resolveVariables(input, ctx, { OUT: "/tmp/out" }), want));
  }
  test("no folder keeps ${workspaceFolder}", () =>
    assert.equal(resolveVariables("${workspaceFolder}/a", { home: "/h" }), "${workspaceFolder}/a"));
});

describe("absolute", () => {
  test("relative joins the folder", () => assert.equal(absolute("build/app", "/ws"), "/ws/build/app"));
  test("absolute unchanged", () => assert.equal(absolute("/opt/app", "/ws"), "/opt/app"));
  test("no folder unchanged", () => assert.equal(absolute("app", undefined), "app"));
});

describe("serverSettings", () => {
  test("nothing set sends nothing (gmonlens.yaml decides)", () => {
    const raw: RawSettings = {
      binary: unset(""),
      profiles: unset([]),
      staticCallGraph: unset(false),
      sourceMap: unset({}),
      lensTitle: unset(""),
    };
    assert.deepEqual(serverSettings(raw, ctx), { settings: {}, problems: [] });
  });

  test("set values are validated, resolved and camelCase", () => {
    const raw: RawSettings = {
      binary: set("build/calc"),
      profiles: set(["gmon.out.*", "${workspaceFolder}/more/gmon.sum", " "]),
      staticCallGraph: set(true),
      sourceMap: set({ "/build/src": "${workspaceFolder}/src", "/ci": "vendor" }),
      lensTitle: set("{name}: {percent}%"),
      interpreter: set("/usr/bin/python3"),
    };
    const { settings, problems } = serverSettings(raw, ctx);
    assert.deepEqual(problems, []);
    assert.deepEqual(settings, {
      binary: "/ws/proj/build/calc",
      profiles: ["/ws/proj/gmon.out.*", "/ws/proj/more/gmon.sum"],
      staticCallGraph: true,
      sourceMap: { "/build/src": "/ws/proj/src", "/ci": "/ws/proj/vendor" },
      lensTitle: "{name}: {percent}%",
    });
  });

  test("explicit false is sent", () =>
    assert.deepEqual(serverSettings({ staticCallGraph: set(false) }, ctx).settings, { staticCallGraph: false }));

  test("empty values are not sent", () => {
    const raw: RawSettings = { binary: set("  "), profiles: set([]), sourceMap: set({}), lensTitle: set("") };
    assert.deepEqual(serverSettings(raw, ctx), { settings: {}, problems: [] });
  });

  test("wrong types are dropped with one problem each", () => {
    const raw: RawSettings = {
      binary: set(42),
      profiles: set("gmon.out"),
      staticCallGraph: set("yes"),
      sourceMap: set({ a: 1 }),
      lensTitle: set(["x"]),
    };
    const { settings, problems } = serverSettings(raw, ctx);
    assert.deepEqual(settings, {});
    assert.equal(problems.length, 5);
    assert.match(problems[0], /^gmonlens\.binary: expected a string, got 42; ignored$/);
    assert.match(problems[2], /^gmonlens\.staticCallGraph: expected true or false/);
  });
});

describe("baseline setting", () => {
  test("an object, a string or an array of profiles; paths resolved", () => {
    assert.deepEqual(serverSettings({ baseline: set({ profiles: ["old/gmon.out"], binary: "old/app" }) }, ctx).settings, {
      baseline: { profiles: ["/ws/proj/old/gmon.out"], binary: "/ws/proj/old/app" },
    });
    assert.deepEqual(serverSettings({ baseline: set("base.gmon") }, ctx).settings, { baseline: { profiles: ["/ws/proj/base.gmon"] } });
    assert.deepEqual(serverSettings({ baseline: set(["a", " "]) }, ctx).settings, { baseline: { profiles: ["/ws/proj/a"] } });
  });
  test("the default {} is not sent; a wrong shape is one problem", () => {
    assert.deepEqual(serverSettings({ baseline: set({}) }, ctx), { settings: {}, problems: [] });
    const { settings, problems } = serverSettings({ baseline: set({ profile: "x" }) }, ctx);
    assert.deepEqual(settings, {});
    assert.match(problems[0], /^gmonlens\.baseline: expected profile paths or an object/);
    assert.equal(serverSettings({ baseline: set({ profiles: "a", binary: 3 }) }, ctx).problems.length, 1);
  });
});

describe("clientSettings", () => {
  test("defaults", () =>
    assert.deepEqual(clientSettings({}, ctx), { settings: { interpreter: "", serverCommand: [] }, problems: [] }));

  test("bare interpreter name stays a PATH lookup, a relative path joins the folder", () => {
    assert.equal(clientSettings({ interpreter: set("python3.12") }, ctx).settings.interpreter, "python3.12");
    assert.equal(clientSettings({ interpreter: set(".venv/bin/python") }, ctx).settings.interpreter, "/ws/proj/.venv/bin/python");
  });

  test("serverCommand: argv with variables; a single string is one executable", () => {
    assert.deepEqual(
      clientSettings({ serverCommand: set(["~/.local/bin/gmonlens", "--log=${workspaceFolder}/x", ""]) }, ctx).settings.serverCommand,
      ["/home/me/.local/bin/gmonlens", "--log=/ws/proj/x"],
    );
    assert.deepEqual(clientSettings({ serverCommand: set("/opt/my tools/gmonlens") }, ctx).settings.serverCommand, [
      "/opt/my tools/gmonlens",
    ]);
  });

  test("wrong types fall back with a problem", () => {
    const r = clientSettings({ interpreter: set(3), serverCommand: set({}) }, ctx);
    assert.deepEqual(r.settings, { interpreter: "", serverCommand: [] });
    assert.equal(r.problems.length, 2);
  });
});

describe("line heat settings", () => {
  test("threshold and label are sent when set", () =>
    assert.deepEqual(serverSettings({ lineHeatMinPercent: set(2.5), lineHeatLabel: set("{routine} {seconds}") }, ctx).settings, {
      lineHeatMinPercent: 2.5,
      lineHeatLabel: "{routine} {seconds}",
    }));
  test("bad threshold is dropped with a problem", () => {
    for (const v of [-1, 101, "5", null]) {
      const r = serverSettings({ lineHeatMinPercent: set(v) }, ctx);
      assert.deepEqual(r.settings, {});
      assert.match(r.problems[0], /gmonlens.lineHeatMinPercent: expected a number from 0 to 100/);
    }
  });
  test("budgets: a file made absolute against the folder; not a string reported", () => {
    assert.deepEqual(serverSettings({ budgets: set("perf/budgets.yaml") }, ctx).settings, { budgets: "/ws/proj/perf/budgets.yaml" });
    assert.deepEqual(serverSettings({ budgets: set("  ") }, ctx).settings, {});
    const r = serverSettings({ budgets: set(["a.yaml"]) }, ctx);
    assert.deepEqual(r.settings, {});
    assert.match(r.problems[0], /gmonlens.budgets: expected a string/);
  });
  test("clones: gprof or apart, anything else reported", () => {
    assert.deepEqual(serverSettings({ clones: set("apart") }, ctx).settings, { clones: "apart" });
    const r = serverSettings({ clones: set("separately") }, ctx);
    assert.deepEqual(r.settings, {});
    assert.match(r.problems[0], /gmonlens.clones: expected "gprof" or "apart"/);
  });
});
