// package.json agrees with the code: every contributed command is registered, every setting is read.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, test } from "node:test";
import { COMMANDS } from "../../src/ids";
import { SERVER_COMMANDS } from "../../src/protocol";
import { SERVER_KEYS } from "../../src/settings";

const root = path.join(__dirname, "..", "..", "..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const sources = fs
  .readdirSync(path.join(root, "src"))
  .filter((f) => f.endsWith(".ts"))
  .map((f) => fs.readFileSync(path.join(root, "src", f), "utf8"))
  .join("\n");
/** COMMANDS' keys registered: `registerCommand(COMMANDS.x, ...)` or a `[COMMANDS.x, factory]` row. */
const registered = new Set([...sources.matchAll(/(?:registerCommand\(\s*|\[)COMMANDS\.(\w+)\s*,/g)].map((m) => m[1]));

test("contributed commands are the extension's, and each of its commands is registered", () => {
  const ids = new Map(Object.entries(COMMANDS).map(([key, id]) => [id as string, key]));
  for (const { command } of manifest.contributes.commands) {
    assert.ok(ids.has(command), `${command} is not in src/ids.ts`);
  }
  for (const key of Object.keys(COMMANDS)) {
    assert.ok(registered.has(key), `COMMANDS.${key} is not registered`);
  }
});

test("Record a Profile runs a program: offered and enabled only in a trusted workspace, and said so", () => {
  const command = manifest.contributes.commands.find((c: { command: string }) => c.command === COMMANDS.recordProfile);
  assert.equal(command?.enablement, "isWorkspaceTrusted");
  const palette = manifest.contributes.menus.commandPalette.find((c: { command: string }) => c.command === COMMANDS.recordProfile);
  assert.equal(palette?.when, "isWorkspaceTrusted");
  const untrusted = manifest.capabilities.untrustedWorkspaces;
  assert.equal(untrusted.supported, "limited");
  assert.match(untrusted.description, /Record a Profile/);
  // and the command checks it itself (a keybinding or another extension can run it)
  const source = fs.readFileSync(path.join(root, "src", "record.ts"), "utf8");
  assert.match(source, /if \(!vscode\.workspace\.isTrusted\)/);
});

test("no client command shares a name with a server command (vscode-languageclient registers those)", () => {
  const server = new Set<string>(Object.values(SERVER_COMMANDS));
  for (const id of Object.values(COMMANDS)) {
    assert.ok(!server.has(id), `${id} is also a server command`);
  }
});

test("settings are exactly the server keys, the client keys and trace.server", () => {
  const keys = Object.keys(manifest.contributes.configuration.properties).sort();
  const want = [...SERVER_KEYS, "interpreter", "serverCommand", "trace.server", "showLineHeat"].map((k) => `gmonlens.${k}`).sort();
  assert.deepEqual(keys, want);
  for (const [key, spec] of Object.entries(manifest.contributes.configuration.properties)) {
    const s = spec as { markdownDescription?: string; description?: string };
    assert.ok((s.markdownDescription ?? s.description ?? "").length > 20, `${key} is not documented`);
  }
});

test("activation on C/C++ and on profiles", () => {
  const events: string[] = manifest.activationEvents;
  for (const e of ["onLanguage:c", "onLanguage:cpp", "workspaceContains:gmon.out", "workspaceContains:gmon.out.*", "workspaceContains:gmonlens.yaml"]) {
    assert.ok(events.includes(e), e);
  }
});

test("the bundled launcher is packaged", () => {
  const ignore = fs.readFileSync(path.join(root, ".vscodeignore"), "utf8");
  for (const p of ["!dist/extension.js", "!python/launch.py", "!bundled/**", "!images/heat-*.svg"]) {
    assert.ok(ignore.includes(p), p);
  }
});

test("the gutter heat icons exist", () => {
  for (let i = 1; i <= 4; i++) {
    assert.ok(fs.existsSync(path.join(root, "images", `heat-${i}.svg`)), `heat-${i}.svg`);
  }
});

test("npm run package is make vsix: no npm script packs bundled/ as it happens to be", () => {
  const scripts: Record<string, string> = manifest.scripts;
  assert.equal(scripts.package, "make vsix");
  assert.equal(scripts["vscode:prepublish"], "node scripts/prepublish.mjs");
  for (const [name, command] of Object.entries(scripts)) {
    assert.ok(!/\bvsce\b/.test(command), `npm run ${name} runs vsce itself: ${command}`);
  }
});

describe("vsce's prepublish hook lets only the Makefile package", () => {
  /** scripts/prepublish.mjs in a copy of the layout: bundled/libs with a server, bundled/native as asked. */
  function run(target: string | undefined, layout: { libs: boolean; capstone: boolean }) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gmonlens-prepublish-"));
    try {
      fs.mkdirSync(path.join(dir, "scripts"));
      fs.copyFileSync(path.join(root, "scripts", "prepublish.mjs"), path.join(dir, "scripts", "prepublish.mjs"));
      if (layout.libs) {
        fs.mkdirSync(path.join(dir, "bundled", "libs", "gmonlens_lsp"), { recursive: true });
      }
      if (layout.capstone) {
        fs.mkdirSync(path.join(dir, "bundled", "native", "capstone", "lib"), { recursive: true });
      }
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env.GMONLENS_VSIX_TARGET;
      if (target !== undefined) {
        env.GMONLENS_VSIX_TARGET = target;
      }
      const done = spawnSync(process.execPath, [path.join(dir, "scripts", "prepublish.mjs")], { env, encoding: "utf8" });
      return { status: done.status, stderr: done.stderr };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  test("vsce run by hand (npx vsce package) stops, pointing at make vsix", () => {
    const done = run(undefined, { libs: true, capstone: true });
    assert.equal(done.status, 1);
    assert.match(done.stderr, /not run by the Makefile.*make vsix/);
  });
  test("the Makefile's platform-neutral and target packages pass when bundled/ matches", () => {
    assert.equal(run("none", { libs: true, capstone: false }).status, 0);
    assert.equal(run("linux-x64", { libs: true, capstone: true }).status, 0);
  });
  test("a bundled/ that does not match the target stops", () => {
    assert.match(run("none", { libs: true, capstone: true }).stderr, /platform-neutral package would carry bundled\/native/);
    assert.match(run("linux-x64", { libs: true, capstone: false }).stderr, /linux-x64 package would carry no capstone/);
    assert.match(run("none", { libs: false, capstone: false }).stderr, /bundled\/libs holds no server/);
  });
});
