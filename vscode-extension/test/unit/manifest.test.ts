// package.json agrees with the code: every contributed command is registered, every setting is read.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { SERVER_KEYS } from "../../src/settings";

const root = path.join(__dirname, "..", "..", "..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const source = ["extension.ts", "commands.ts", "heatview.ts", "callGraphPanel.ts", "disasmView.ts"].map((f) => fs.readFileSync(path.join(root, "src", f), "utf8")).join("\n");

test("contributed commands are registered", () => {
  for (const { command } of manifest.contributes.commands) {
    assert.ok(source.includes(`"${command}"`), `${command} is not registered`);
  }
});

test("no client command shares a name with a server command (vscode-languageclient registers those)", () => {
  const protocol = fs.readFileSync(path.join(root, "..", "server", "gmonlens_lsp", "PROTOCOL.md"), "utf8");
  const serverCommands = new Set([...protocol.matchAll(/^\s*- `(gmonlens\.[A-Za-z.]+)`/gm)].map((m) => m[1]));
  assert.ok(serverCommands.has("gmonlens.reload") && serverCommands.has("gmonlens.pinBaseline"), [...serverCommands].join(" "));
  for (const { command } of manifest.contributes.commands) {
    assert.ok(!serverCommands.has(command), `${command} is also a server command`);
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
