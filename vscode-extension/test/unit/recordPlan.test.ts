import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, test } from "node:test";
import { bundledPlan, serverCommandPlan } from "../../src/launch";
import type { RecordSummary } from "../../src/protocol";
import {
  commandLine,
  launchTargets,
  readRemembered,
  recordArgv,
  recordDir,
  recordNotices,
  remember,
  resolveVariables,
  splitCommandLine,
  terminalArgs,
  withOptions,
} from "../../src/recordPlan";

describe("the command line a person types", () => {
  test("split as a shell splits it, nothing expanded", () => {
    assert.deepEqual(splitCommandLine("./build/app --size 10"), { argv: ["./build/app", "--size", "10"] });
    assert.deepEqual(splitCommandLine(`sh -c 'echo "$HOME" | wc'`), { argv: ["sh", "-c", 'echo "$HOME" | wc'] });
    assert.deepEqual(splitCommandLine(`a "b \\"c\\" \\$d" e\\ f '' g`), { argv: ["a", 'b "c" $d', "e f", "", "g"] });
    assert.deepEqual(splitCommandLine("  "), { problem: "no command" });
    assert.deepEqual(splitCommandLine("a 'b"), { problem: "the single quote is not closed" });
  });
  test("quoted back so that it splits the same", () => {
    for (const argv of [["./app"], ["a b", "it's", "", "$X", "--size=10"], ["ümlaut", "tab\there"]]) {
      const line = commandLine(argv);
      assert.deepEqual(splitCommandLine(line), { argv }, line);
    }
    assert.equal(commandLine(["./build/app", "--size", "10"]), "./build/app --size 10");
  });
  test("a shell reads the quoted line as the same words", () => {
    const argv = ["a b", "it's", "$HOME", "`x`", "\\n"];
    const out = execFileSync("/bin/sh", ["-c", `printf '%s\\n' ${commandLine(argv)}`], { encoding: "utf8" });
    assert.deepEqual(out.split("\n").slice(0, -1), argv);
  });
});

describe("launch.json's programs", () => {
  const vars = { folder: "/ws/app", home: "/home/me", env: { BUILD: "out" } };
  test("variables resolved; a configuration needing an input or a command is left out", () => {
    assert.equal(resolveVariables("${workspaceFolder}/${env:BUILD}/${workspaceFolderBasename}", vars), "/ws/app/out/app");
    assert.equal(resolveVariables("${userHome}${/}x", vars), "/home/me/x");
    assert.equal(resolveVariables("${input:pick}", vars), undefined);
    assert.equal(resolveVariables("${command:cmake.launchTargetPath}", vars), undefined);
  });
  test("native debug types, launch requests", () => {
    const configs = [
      { name: "app", type: "cppdbg", request: "launch", program: "${workspaceFolder}/build/app", args: ["--n", "3"], cwd: "${workspaceFolder}/build" },
      { name: "lldb", type: "lldb", request: "launch", program: "./app", args: "-v 'a b'" },
      { name: "gdb", type: "gdb", request: "launch", target: "./app", arguments: "x y", cwd: "${workspaceFolder}" },
      { name: "attach", type: "cppdbg", request: "attach", program: "./app" },
      { name: "python", type: "debugpy", request: "launch", program: "x.py" },
      { name: "cmake", type: "cppdbg", request: "launch", program: "${command:cmake.launchTargetPath}" },
      { name: "no program", type: "cppdbg", request: "launch" },
      "junk",
    ];
    assert.deepEqual(launchTargets(configs, vars), [
      { name: "app", argv: ["/ws/app/build/app", "--n", "3"], cwd: "/ws/app/build" },
      { name: "lldb", argv: ["./app", "-v", "a b"], cwd: "/ws/app" },
      { name: "gdb", argv: ["./app", "x", "y"], cwd: "/ws/app" },
    ]);
    assert.deepEqual(launchTargets(undefined, vars), []);
  });
});

describe("remembered per folder", () => {
  test("newest first, no repeats, at most 8", () => {
    let list = readRemembered(undefined);
    for (let i = 0; i < 10; i++) list = remember(list, { argv: ["./app", String(i)] });
    list = remember(list, { argv: ["./app", "5"] });
    assert.equal(list.length, 8);
    assert.deepEqual(list[0], { argv: ["./app", "5"] });
    assert.equal(list.filter((t) => t.argv[1] === "5").length, 1);
    assert.deepEqual(readRemembered([{ argv: [] }, { argv: ["a"], cwd: 3 }, { argv: ["b"], cwd: "/x", options: ["--runs=2"] }, 7]), [
      { argv: ["a"] },
      { argv: ["b"], cwd: "/x", options: ["--runs=2"] },
    ]);
  });
});

describe("the terminal's command", () => {
  const target = { argv: ["./app", "a b"], options: ["--on-signal=exit"] };
  test("the server's interpreter and bundle, serve replaced by record", () => {
    const plan = bundledPlan("/usr/bin/python3", { root: "/ext" }, "PATH");
    assert.deepEqual(recordArgv(plan, recordDir("/ws/"), target), [
      "/usr/bin/python3", "-I", "/ext/python/launch.py", "record", "--out", "/ws/gmonlens-record", "--on-signal=exit", "--", "./app", "a b",
    ]);
    assert.deepEqual(recordArgv(serverCommandPlan(["/opt/gmonlens"]), "/d", { argv: ["x"] }), ["/opt/gmonlens", "record", "--out", "/d", "--", "x"]);
    const module = { command: "python3", args: ["-I", "-m", "gmonlens_lsp", "serve"], origin: "interpreter" as const };
    assert.deepEqual(recordArgv(module, "/d", { argv: ["x"] }).slice(0, 5), ["python3", "-I", "-m", "gmonlens_cli", "record"]);
  });
  test("the shell script runs it, writes its status, waits for Enter", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gmonlens-test-"));
    const status = path.join(dir, "status");
    const { shellPath, shellArgs } = terminalArgs(status, ["sh", "-c", 'printf "%s|" "$@"; exit 3', "sh", "a b", "$HOME"]);
    const run = spawnSync(shellPath, shellArgs, { input: "\n", encoding: "utf8" });
    const out = run.stdout;
    assert.equal(run.status, 3);
    assert.ok(out.startsWith("a b|$HOME|"), out);
    assert.match(out, /exit status 3; press Enter/);
    assert.equal(fs.readFileSync(status, "utf8"), "3");
    fs.rmSync(dir, { recursive: true });
  });
});

describe("what the person is told", () => {
  const base: RecordSummary = { usable: true, outDir: "/ws/gmonlens-record", exitStatus: 0, commandStatus: 0, argv: ["./app"], profiles: 2,
    programs: [{ binary: "/ws/sh", samples: 3, seconds: 0.03 }, { binary: "/ws/app", samples: 227, seconds: 2.27, hottest: "leaf" }], diagnosis: [] };
  test("a usable recording", () => {
    assert.deepEqual(recordNotices(base), [{ level: "info", text: "gmonlens: recorded 2 profiles of app, 2.27 s; hottest: leaf" }]);
  });
  test("one notification per code, errors first, the fix in it, a button where recording again fixes it", () => {
    const rec: RecordSummary = {
      ...base,
      usable: false,
      exitStatus: 125,
      diagnosis: [
        { code: "few_samples", severity: "warning", message: "only 3 samples", fix: "run longer", rerun: ["--precision=5%"] },
        { code: "killed_by_signal", severity: "error", message: "killed by SIGTERM", fix: "record with --on-signal=exit", rerun: ["--on-signal=exit"] },
        { code: "killed_by_signal", severity: "error", message: "again", fix: "same", rerun: [] },
        { code: "stopped_by_signal", severity: "note", message: "n", fix: "nothing", rerun: [] },
      ],
    };
    assert.deepEqual(recordNotices(rec), [
      { level: "error", text: "gmonlens record [killed_by_signal]: killed by SIGTERM. Fix: record with --on-signal=exit", rerun: ["--on-signal=exit"] },
      { level: "warning", text: "gmonlens record [few_samples]: only 3 samples. Fix: run longer", rerun: ["--precision=5%"] },
      { level: "info", text: "gmonlens record [stopped_by_signal]: n. Fix: nothing" },
    ]);
    assert.deepEqual(recordNotices({ ...base, usable: false, exitStatus: 125, diagnosis: [] }), [
      { level: "error", text: "gmonlens record: no usable profile (exit status 125); see the terminal" },
    ]);
  });
  test("recording again: an option of the same name replaced", () => {
    assert.deepEqual(withOptions(["--arcs=100", "--runs=2"], ["--arcs=65536"]), ["--runs=2", "--arcs=65536"]);
    assert.deepEqual(withOptions([], ["--on-signal=exit"]), ["--on-signal=exit"]);
  });
});
