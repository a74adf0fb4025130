import assert from "node:assert/strict";
import * as path from "node:path";
import { describe, test } from "node:test";
import {
  type LaunchPlan,
  type Probe,
  bundledCapstone,
  capstoneAdvice,
  describePlan,
  loggedWarningPopup,
  parsePythonVersion,
  planLaunch,
  pythonCandidates,
  serverCommandPlan,
  versionOk,
} from "../../src/launch";

const layout = { root: "/ext" };
const probeFrom =
  (versions: Record<string, string>): Probe =>
  async (python) => {
    if (!(python in versions)) {
      throw new Error(`spawn ${python} ENOENT`);
    }
    return `${versions[python]}\n`;
  };

describe("versions", () => {
  test("parse", () => {
    assert.deepEqual(parsePythonVersion("3.11\n"), [3, 11]);
    assert.deepEqual(parsePythonVersion("Python 3.10.12"), [3, 10]);
    assert.equal(parsePythonVersion("garbage"), undefined);
  });
  test("minimum 3.10", () => {
    assert.equal(versionOk([3, 9]), false);
    assert.equal(versionOk([3, 10]), true);
    assert.equal(versionOk([4, 0]), true);
  });
  test("candidates", () => {
    assert.deepEqual(pythonCandidates("linux"), ["python3", "python"]);
    assert.equal(pythonCandidates("win32")[0], "python");
  });
});

describe("planLaunch", () => {
  test("serverCommand wins and gets `serve` appended once", async () => {
    const plan = await planLaunch({ interpreter: "/py", serverCommand: ["/bin/gmonlens"] }, layout, "linux", probeFrom({}));
    assert.deepEqual(plan, { command: "/bin/gmonlens", args: ["serve"], origin: "serverCommand" });
    assert.deepEqual(serverCommandPlan(["python3", "-m", "gmonlens_lsp", "serve"]).args, ["-m", "gmonlens_lsp", "serve"]);
  });

  test("interpreter runs the bundled launcher isolated", async () => {
    const plan = await planLaunch({ interpreter: "/venv/bin/python", serverCommand: [] }, layout, "linux", probeFrom({ "/venv/bin/python": "3.12" }));
    assert.deepEqual(plan, { command: "/venv/bin/python", args: ["-I", "/ext/python/launch.py", "serve"], origin: "interpreter" });
  });

  test("interpreter too old or missing is a problem, not a fallback", async () => {
    const old = await planLaunch({ interpreter: "/old", serverCommand: [] }, layout, "linux", probeFrom({ "/old": "3.8", python3: "3.11" }));
    assert.match((old as { problem: string }).problem, /is Python 3\.8; gmonlens needs >= 3\.10/);
    const gone = await planLaunch({ interpreter: "/gone", serverCommand: [] }, layout, "linux", probeFrom({ python3: "3.11" }));
    assert.match((gone as { problem: string }).problem, /"\/gone" does not run/);
  });

  test("PATH: first python >= 3.10", async () => {
    const plan = (await planLaunch({ interpreter: "", serverCommand: [] }, layout, "linux", probeFrom({ python3: "3.9", python: "3.10" }))) as LaunchPlan;
    assert.equal(plan.command, "python");
    assert.equal(plan.origin, "PATH");
  });

  test("PATH: none usable says what was tried", async () => {
    const r = await planLaunch({ interpreter: "", serverCommand: [] }, layout, "linux", probeFrom({ python3: "3.8" }));
    assert.equal(
      (r as { problem: string }).problem,
      "no Python >= 3.10 on PATH (python3: 3.8, python: not found); set gmonlens.interpreter or gmonlens.serverCommand",
    );
  });

  test("describePlan quotes like a shell and shows --stdio", () => {
    assert.equal(
      describePlan({ command: "/opt/my py/python", args: ["-I", "/ext/python/launch.py", "serve"], origin: "interpreter" }),
      "'/opt/my py/python' -I /ext/python/launch.py serve --stdio   (from interpreter)",
    );
  });
});

describe("capstone advice", () => {
  const missing = "no disassembly without the capstone module (pip install capstone in gmonlens's Python)";

  test("the platform-neutral package says to install the platform's package", () => {
    const text = capstoneAdvice(missing, "neutral");
    assert.ok(text.startsWith(missing));
    assert.match(text, /platform-neutral gmonlens package, which has no capstone: install the gmonlens package for your platform \(gmonlens-<platform>-<version>\.vsix: linux-x64,/);
    assert.match(text, /python3 -m pip install capstone/);
  });

  test("a platform's package whose capstone did not load points at the interpreter", () => {
    assert.match(capstoneAdvice(missing, "platform"), /capstone did not load in that Python .* this machine's architecture/);
  });

  test("other messages are unchanged", () => {
    assert.equal(capstoneAdvice("no routine named x", "neutral"), "no routine named x");
  });

  // the engine's warning (analysis/gmonlens/staticcalls.py), logged by the server (window/logMessage)
  const noStaticCalls = "-c is unavailable: the capstone disassembler (Python package 'capstone') is not installed";

  test("-c without capstone pops up with the listing's advice, whatever the server", () => {
    for (const source of ["neutral", "platform", "serverCommand"] as const) {
      const popup = loggedWarningPopup(noStaticCalls, source);
      assert.equal(popup, `gmonlens: ${capstoneAdvice(noStaticCalls, source)}`);
      assert.equal(
        popup?.slice(`gmonlens: ${noStaticCalls}`.length),
        capstoneAdvice(missing, source).slice(missing.length),
        "the same advice as the listing's",
      );
    }
    assert.match(loggedWarningPopup(noStaticCalls, "neutral") ?? "", /platform-neutral gmonlens package.*linux-x64.*pip install capstone/);
    assert.match(loggedWarningPopup(noStaticCalls, "platform") ?? "", /this machine's architecture/);
  });

  test("with gmonlens.serverCommand, capstone goes into that server's Python", () => {
    const text = capstoneAdvice(missing, "serverCommand");
    assert.match(text, /gmonlens of gmonlens\.serverCommand: install capstone in the Python it runs on/);
    assert.doesNotMatch(text, /This extension's capstone|platform-neutral/);
  });

  test("other logged warnings stay in the output", () => {
    assert.equal(loggedWarningPopup("-c is not supported on architecture RISC-V", "neutral"), undefined);
    assert.equal(loggedWarningPopup("gmon.out: the binary calc is newer than this profile", "platform"), undefined);
    assert.equal(loggedWarningPopup("capstone 5.0.9 decodes x86 with objdump's spelling", "neutral"), undefined);
  });

  test("bundledCapstone is under bundled/native", () => {
    assert.equal(bundledCapstone({ root: "/ext" }), path.join("/ext", "bundled", "native", "capstone"));
  });
});
