// The wire contract against the server's real messages (protocol/examples at the repository's root,
// written by tests/protocol from a session with the server: protocol/README.md): every example file is
// a message part src/protocol.ts knows and fits its shape exactly, every part it knows has an example,
// the readers lose nothing of them, and what the extension sends is built as the examples show.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { HOTTEST_LIMIT } from "../../src/hottest";
import {
  MESSAGES,
  SERVER_COMMANDS,
  callGraphParams,
  disassemblyParams,
  flameGraphParams,
  folderArguments,
  hottestArguments,
  lineHeatParams,
  listingError,
  parseCallGraph,
  parseChanges,
  parseFlameGraph,
  parseHottest,
  parseLineHeat,
  parseListing,
  parseRecording,
  parseStatus,
  parseTests,
  parseTestsList,
  pinnedAny,
  recordParams,
  selectTestArguments,
  wire,
} from "../../src/protocol";
import { arr, int, lit, nullable, obj, optional, str, tuple, union } from "../../src/schema";
import { type RawSettings, SERVER_KEYS, serverSettings } from "../../src/settings";

const EXAMPLES = path.join(__dirname, "..", "..", "..", "..", "protocol", "examples");
const PARTS = ["params", "result", "arguments", "data", "initializationOptions"] as const;
type Part = (typeof PARTS)[number];

interface Example {
  file: string;
  message: string; // as MESSAGES names it: "gmonlens/lineHeat", "command.gmonlens.hottest"
  part: Part;
  variant: string; // "" for the part's first form
  value: unknown;
}

function loadExamples(): Example[] {
  return fs
    .readdirSync(EXAMPLES)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => {
      const words = file.slice(0, -".json".length).split(".");
      const at = words.findIndex((w) => (PARTS as readonly string[]).includes(w));
      assert.ok(at > 0, `${file}: no part (${PARTS.join(", ")}) in its name`);
      const name = words.slice(0, at).join(".");
      const message = name.startsWith("gmonlens.") ? name.replace(".", "/") : name;
      const value: unknown = JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), "utf8"));
      return { file, message, part: words[at] as Part, variant: words.slice(at + 1).join("."), value };
    });
}

const examples = loadExamples();
/** The value of an example file, by its name without `.json`. */
function ex(name: string): any {
  const found = examples.find((e) => e.file === `${name}.json`);
  assert.ok(found, `no example ${name}.json`);
  return found.value;
}

describe("every example is a message protocol.ts knows, of its shape", () => {
  test("the examples are there", () => {
    assert.ok(examples.length >= 30, `${examples.length} example files in ${EXAMPLES}`);
  });
  for (const e of examples) {
    test(e.file, () => {
      const schema = MESSAGES[e.message]?.[e.part];
      assert.ok(schema, `${e.file}: protocol.ts has no ${e.part} of ${e.message} (MESSAGES)`);
      assert.deepEqual(schema.check(e.value), [], `${e.file} does not fit protocol.ts`);
    });
  }
  test("every message part protocol.ts knows has an example", () => {
    const have = new Set(examples.filter((e) => e.variant === "").map((e) => `${e.message} ${e.part}`));
    const missing = Object.entries(MESSAGES).flatMap(([message, parts]) =>
      Object.keys(parts)
        .map((part) => `${message} ${part}`)
        .filter((key) => !have.has(key)),
    );
    assert.deepEqual(missing, []);
  });
  test("the server's commands are those with examples", () => {
    const commands = Object.keys(MESSAGES).filter((m) => m.startsWith("command.")).map((m) => m.slice("command.".length));
    assert.deepEqual(new Set(Object.values(SERVER_COMMANDS)), new Set(commands));
  });
});

describe("the readers lose nothing of a real message", () => {
  test("gmonlens/status", () => {
    const raw = ex("gmonlens.status.params");
    const status = parseStatus(raw);
    assert.ok(status?.baseline && status.health);
    assert.equal(status.health.length, raw.health.length);
    assert.deepEqual({ ...status.baseline, percent: status.baseline.percent ?? null }, raw.baseline);
    assert.equal(status.folder, raw.folder);
  });
  test("gmonlens/lineHeat", () => {
    const raw = ex("gmonlens.lineHeat.result");
    assert.deepEqual(parseLineHeat(raw), raw);
  });
  test("gmonlens/callGraph", () => {
    const raw = ex("gmonlens.callGraph.result");
    const graph = parseCallGraph(raw);
    assert.ok(graph);
    assert.deepEqual(graph.nodes, raw.nodes);
    assert.deepEqual(graph.edges, raw.edges);
    assert.deepEqual(
      graph.cycles,
      raw.cycles.map((c: { number: number; members: number[] }) => ({ number: c.number, members: c.members })),
    );
    assert.ok(raw.cycles.length > 0 && raw.edges.some((e: { estimated: boolean | null }) => e.estimated !== null));
  });
  test("gmonlens/flameGraph", () => {
    const raw = ex("gmonlens.flameGraph.result");
    assert.deepEqual(parseFlameGraph(raw), raw);
  });
  test("gmonlens/disassembly", () => {
    for (const name of ["gmonlens.disassembly.result", "command.gmonlens.showDisassembly.result"]) {
      const raw = ex(name);
      const listing = parseListing(raw);
      assert.ok(listing, name);
      assert.equal(listing.instructions.length, raw.instructions.length);
      assert.equal(listing.sources.length, raw.sources.length);
      assert.deepEqual(
        listing.instructions.flatMap((i) => i.calls),
        raw.instructions.flatMap((i: { calls: unknown[] }) => i.calls),
      );
      assert.equal(listingError(raw), undefined);
    }
    const error = ex("gmonlens.disassembly.result.error");
    assert.equal(parseListing(error), undefined);
    assert.equal(listingError(error), error.error);
  });
  test("gmonlens.hottest and gmonlens.changes", () => {
    const hot = ex("command.gmonlens.hottest.result");
    assert.deepEqual(
      parseHottest(hot),
      hot.map((h: { uri: string | null; line: number | null }) => ({ ...h, uri: h.uri ?? undefined, line: h.line ?? undefined })),
    );
    const changes = ex("command.gmonlens.changes.result");
    const read = parseChanges(changes);
    assert.deepEqual(
      read.map((c) => [c.name, c.kind, c.change, c.selfAfter, c.totalBefore, c.callsAfter, c.uri, c.line]),
      changes.map((c: Record<string, unknown>) => [c.name, c.kind, c.change, c.selfAfter, c.totalBefore, c.callsAfter, c.uri, c.line]),
    );
    assert.ok(pinnedAny(ex("command.gmonlens.pinBaseline.result")));
  });
  test("gmonlens.tests and gmonlens.selectTest", () => {
    const raw = ex("command.gmonlens.tests.result");
    const [listing] = parseTests(raw);
    const orUndefined = (v: unknown) => (v === null ? undefined : v);
    const loose = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, orUndefined(v)]));
    assert.deepEqual(listing, { ...loose(raw[0]), tests: raw[0].tests.map(loose) });
    for (const variant of ["", ".suite", ".auto"]) {
      const chosen = ex(`command.gmonlens.selectTest.result${variant}`);
      assert.equal(parseTestsList(chosen)?.mode, chosen.mode);
      assert.equal(parseTestsList(chosen)?.tests.length, chosen.tests.length);
    }
  });
});

describe("gmonlens/record: the recording, read as the command's notifications use it", () => {
  test("nothing of the findings, programs and profiles is lost", () => {
    const raw = ex("gmonlens.record.result");
    const rec = parseRecording(raw);
    assert.ok(rec);
    assert.equal(rec.usable, raw.usable);
    assert.equal(rec.outDir, raw.out_dir);
    assert.equal(rec.exitStatus, raw.exit_status);
    assert.deepEqual(rec.argv, raw.command.argv);
    assert.equal(rec.profiles, raw.profiles.length);
    assert.deepEqual(rec.diagnosis, raw.diagnosis);
    assert.deepEqual(
      rec.programs,
      raw.binaries.map((b: { binary: string; samples: number; seconds: number | null; top: { name: string }[] }) => ({
        binary: b.binary,
        samples: b.samples,
        seconds: b.seconds,
        hottest: b.top[0].name,
      })),
    );
  });
  test("not a recording, and a malformed finding", () => {
    assert.equal(parseRecording({ schema: "gmonlens-profile/1" }), undefined);
    assert.equal(parseRecording(null), undefined);
    const raw = structuredClone(ex("gmonlens.record.result"));
    raw.diagnosis.push({ code: 5 }, { code: "killed_by_signal", severity: "error", message: "m", fix: "f", rerun: ["--on-signal=exit", 3] });
    const rec = parseRecording(raw);
    assert.deepEqual(rec?.diagnosis.at(-1), { code: "killed_by_signal", severity: "error", message: "m", fix: "f", rerun: ["--on-signal=exit"] });
    assert.equal(rec?.diagnosis.length, raw.diagnosis.length - 1);
  });
  test("what a client sends", () => {
    const params = ex("gmonlens.record.params");
    assert.deepEqual(recordParams(params.folder, params.argv, params.cwd, params.options, params.workDoneToken), params);
    assert.deepEqual(wire.RecordParams.check(recordParams(undefined, ["./prog"])), []);
  });
});

describe("a profile without a sampling rate: seconds null, kept null, nothing dropped", () => {
  /** The example with every seconds-like figure (`seconds`, `*Seconds`) null, as the server sends
   * them for a profile without a sampling rate. */
  function withoutRate(name: string): any {
    const nulled = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(nulled)
        : typeof v === "object" && v !== null
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, /^seconds$|Seconds$/.test(k) && typeof x === "number" ? null : nulled(x)]))
          : v;
    return nulled(ex(name));
  }
  test("the wire says null", () => {
    for (const name of ["gmonlens.lineHeat.result", "gmonlens.callGraph.result", "gmonlens.flameGraph.result", "gmonlens.disassembly.result"]) {
      const e = examples.find((x) => x.file === `${name}.json`);
      assert.ok(e);
      assert.deepEqual(MESSAGES[e.message][e.part]?.check(withoutRate(name)), [], name);
    }
  });
  test("the readers keep every entry, its seconds null (the views say n/a), never 0", () => {
    for (const name of ["gmonlens.lineHeat.result", "gmonlens.flameGraph.result"]) {
      const raw = withoutRate(name);
      assert.deepEqual(name.includes("lineHeat") ? parseLineHeat(raw) : parseFlameGraph(raw), raw, name);
    }
    const heat = parseLineHeat(withoutRate("gmonlens.lineHeat.result"));
    assert.ok(heat?.lines.every((l) => l.seconds === null && l.errSeconds === null && l.samples! > 0 && l.routines.every((r) => r.seconds === null)));
    const graph = parseCallGraph(withoutRate("gmonlens.callGraph.result"));
    assert.ok(graph && graph.totalSeconds === null);
    assert.ok(graph.nodes.every((n) => n.totalSeconds === null && n.selfSeconds === null));
    assert.ok(graph.edges.every((e) => e.seconds === null));
    const listing = parseListing(withoutRate("gmonlens.disassembly.result"));
    const raw = ex("gmonlens.disassembly.result");
    assert.equal(listing?.selfSeconds, null);
    assert.equal(listing?.instructions.length, raw.instructions.length);
    assert.ok(listing?.instructions.every((i) => i.seconds === null && i.calls.every((c) => c.seconds === null)));
    assert.equal(listing?.instructions.flatMap((i) => i.calls).length, raw.instructions.flatMap((i: { calls: unknown[] }) => i.calls).length);
    const hot = parseHottest(withoutRate("command.gmonlens.hottest.result"));
    assert.ok(hot.length > 0 && hot.every((h) => h.selfSeconds === null && h.totalSeconds === null));
    assert.equal(parseStatus(withoutRate("gmonlens.status.params"))?.totalSeconds, null);
    assert.equal(parseStatus({ state: "loaded" })?.totalSeconds, undefined);
  });
  test("a malformed figure (not a number, not null) is still refused, as before", () => {
    const flame = ex("gmonlens.flameGraph.result");
    assert.equal(parseFlameGraph({ ...flame, frames: [{ ...flame.frames[0], seconds: "1.0" }] }), undefined);
    const heat = ex("gmonlens.lineHeat.result");
    const lines = [{ ...heat.lines[0], seconds: "x" }, heat.lines[1], { ...heat.lines[1], seconds: null }];
    assert.deepEqual(parseLineHeat({ ...heat, lines })?.lines.map((l) => l.seconds), [heat.lines[1].seconds, null]);
    const dis = ex("gmonlens.disassembly.result");
    const withCall = dis.instructions.find((i: { calls: unknown[] }) => i.calls.length > 0);
    const bad = { ...withCall, calls: [{ ...withCall.calls[0], seconds: {} }, { ...withCall.calls[0], seconds: null }] };
    const listing = parseListing({ ...dis, instructions: [{ ...dis.instructions[0], seconds: "x" }, bad] });
    assert.deepEqual(listing?.instructions.map((i) => i.line), [withCall.line]);
    assert.deepEqual(listing?.instructions[0].calls.map((c) => c.seconds), [null]);
    // the call graph's and hottest's readers read a malformed figure as 0, as they did
    const graph = ex("gmonlens.callGraph.result");
    const g = parseCallGraph({ ...graph, totalSeconds: "x", nodes: [{ ...graph.nodes[0], totalSeconds: true }, graph.nodes[1]] });
    assert.equal(g?.totalSeconds, 0);
    assert.equal(g?.nodes[0].totalSeconds, 0);
    const hot = ex("command.gmonlens.hottest.result");
    assert.equal(parseHottest([{ ...hot[0], selfSeconds: "1" }])[0].selfSeconds, 0);
    assert.equal(parseStatus({ state: "loaded", totalSeconds: "2" })?.totalSeconds, undefined);
  });
});

describe("what the extension sends is what the examples show", () => {
  test("gmonlens/lineHeat", () => {
    const params = ex("gmonlens.lineHeat.params");
    assert.deepEqual(lineHeatParams(params.textDocument.uri), params);
  });
  test("gmonlens/callGraph: around the cursor, a routine of an earlier answer, the whole program", () => {
    const cursor = ex("gmonlens.callGraph.params");
    assert.deepEqual(
      callGraphParams({ kind: "cursor", uri: cursor.textDocument.uri, position: cursor.position }, cursor.depth),
      cursor,
    );
    const routine = ex("gmonlens.callGraph.params.routine");
    assert.deepEqual(callGraphParams({ kind: "routine", ...routine }, routine.depth), routine);
    const whole = ex("gmonlens.callGraph.params.whole");
    assert.deepEqual(callGraphParams({ kind: "whole", folder: whole.folder }, 2), whole);
  });
  test("gmonlens/flameGraph", () => {
    const params = ex("gmonlens.flameGraph.params");
    assert.deepEqual(flameGraphParams(params.folder), params);
  });
  test("gmonlens/disassembly: from the cursor, a lens's arguments, a listing document", () => {
    const params = ex("gmonlens.disassembly.params");
    const { textDocument, position, symbol } = params;
    assert.deepEqual(disassemblyParams({ uri: textDocument.uri, position, symbol }), params);
    const [uri, at, name] = ex("command.gmonlens.showDisassembly.arguments");
    assert.deepEqual(wire.DisassemblyParams.check(disassemblyParams({ uri, position: at, symbol: name })), []);
    const listing = ex("gmonlens.disassembly.params.uri");
    assert.deepEqual(disassemblyParams({ listing: listing.uri }), listing);
  });
  test("the commands' arguments", () => {
    for (const command of ["reload", "report", "changes", "pinBaseline", "clearBaseline"]) {
      const args = ex(`command.gmonlens.${command}.arguments`);
      assert.deepEqual(folderArguments(args[0]), args, command);
    }
    assert.deepEqual(hottestArguments("self", HOTTEST_LIMIT), ex("command.gmonlens.hottest.arguments"));
    const [folder, choice] = ex("command.gmonlens.selectTest.arguments");
    assert.deepEqual(selectTestArguments(folder, { kind: "test", name: choice.test }), [folder, choice]);
    assert.deepEqual(selectTestArguments(folder, { kind: "suite" }), ex("command.gmonlens.selectTest.arguments.suite"));
    assert.deepEqual(selectTestArguments(folder, { kind: "auto" }), ex("command.gmonlens.selectTest.arguments.auto"));
    assert.deepEqual(folderArguments(ex("command.gmonlens.tests.arguments")[0]), ex("command.gmonlens.tests.arguments"));
  });
  test("the settings: the keys the extension sends, read as the server reads them", () => {
    const settings = ex("initialize.initializationOptions");
    assert.deepEqual(new Set(Object.keys(settings)), new Set([...SERVER_KEYS, "trustedWorkspace"]));
    const raw: RawSettings = Object.fromEntries(SERVER_KEYS.map((k) => [k, { value: settings[k], isSet: true }]));
    const read = serverSettings(raw, { home: "/home/user" });
    assert.deepEqual(read.problems, []);
    const { trustedWorkspace: _trusted, ...sent } = settings;
    assert.deepEqual(read.settings, sent);
  });
});

describe("schema: a shape that does not fit is told", () => {
  const s = obj({ a: int, b: nullable(str), c: optional(arr(lit("x", "y"))) });
  test("exact keys", () => {
    assert.deepEqual(s.check({ a: 1, b: null }), []);
    assert.deepEqual(s.check({ a: 1, b: "q", c: ["x"] }), []);
    assert.deepEqual(s.check({ a: 1 }), ['$: key "b" is missing']);
    assert.deepEqual(s.check({ a: 1, b: null, d: 0 }), ['$: unknown key "d"']);
  });
  test("types, nested paths", () => {
    assert.deepEqual(s.check({ a: 1.5, b: 2, c: ["z"] }), [
      "$.a: 1.5 is not an integer",
      "$.b: 2 is not a string",
      '$.c[0]: "z" is not one of ["x","y"]',
    ]);
    assert.deepEqual(tuple(str, int).check(["a"]), ['$: ["a"] is not an array of 2']);
    assert.deepEqual(union(tuple(), tuple(str)).check(["a"]), []);
    assert.equal(union(obj({ a: int }), obj({ b: int })).check({ a: "1" }).length, 1);
  });
});
