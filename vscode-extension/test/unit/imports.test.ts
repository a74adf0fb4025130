// The extension's module structure, read from the sources (no module is loaded): no import circle
// among src/ and webview/ (type-only imports and re-exports count: they tie the modules as much),
// the modules that say they are pure import no `vscode` (nor through another module), and
// extension.ts only activates.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

const root = path.join(__dirname, "..", "..", "..");
const FOLDERS = ["src", "webview"];

/** Module (path from the extension's root, no extension) -> its source. */
function sources(): Map<string, string> {
  const out = new Map<string, string>();
  for (const folder of FOLDERS) {
    for (const f of fs.readdirSync(path.join(root, folder))) {
      if (f.endsWith(".ts")) {
        out.set(`${folder}/${f.slice(0, -3)}`, fs.readFileSync(path.join(root, folder, f), "utf8"));
      }
    }
  }
  return out;
}

/** Every module specifier a source names: `import ... from`, `import type`, `export ... from`,
 * side-effect `import "x"`, `import("x")` and `require("x")`. */
export function specifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const patterns = [
    /\b(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\b(?:import|require)\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  return patterns.flatMap((re) => [...code.matchAll(re)].map((m) => m[1]));
}

/** module -> the modules of ours it imports (relative specifiers resolved). */
function graph(modules: Map<string, string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, source] of modules) {
    const deps = specifiers(source)
      .filter((s) => s.startsWith("."))
      .map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(name), s)));
    for (const d of deps) {
      assert.ok(modules.has(d), `${name} imports ${d}, which is not a module of ${FOLDERS.join(" or ")}`);
    }
    out.set(name, deps);
  }
  return out;
}

/** The circles of a graph, each once, as the modules along it (empty when there is none). */
export function circles(g: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (m: string) => {
    state.set(m, "open");
    stack.push(m);
    for (const d of g.get(m) ?? []) {
      if (state.get(d) === "open") {
        found.push([...stack.slice(stack.indexOf(d)), d]);
      } else if (!state.has(d)) {
        visit(d);
      }
    }
    stack.pop();
    state.set(m, "done");
  };
  [...g.keys()].sort().forEach((m) => state.has(m) || visit(m));
  return found;
}

test("the import reader sees every kind of import", () => {
  const source = [
    'import * as vscode from "vscode";',
    'import type { Ctx } from "./ctx";',
    "import {\n  a,\n  type B,\n} from './multi';",
    'export { x } from "./reexport";',
    'export type { Y } from "./typeexport";',
    'import "./side";',
    'const m = await import("./dynamic");',
    "// import { old } from './commented';",
  ].join("\n");
  assert.deepEqual(specifiers(source).sort(), ["./ctx", "./dynamic", "./multi", "./reexport", "./side", "./typeexport", "vscode"]);
});

test("a circle is found, type-only or not", () => {
  const g = new Map([
    ["a", ["b"]],
    ["b", ["c"]],
    ["c", ["a"]],
    ["d", ["a"]],
  ]);
  assert.deepEqual(circles(g), [["a", "b", "c", "a"]]);
  assert.deepEqual(circles(new Map([["a", ["b"]], ["b", []]])), []);
});

test("no import circle among the extension's modules", () => {
  const found = circles(graph(sources()));
  assert.deepEqual(found.map((c) => c.join(" -> ")), []);
});

test("the modules that say they are pure import no vscode, directly or through another module", () => {
  const modules = sources();
  const g = graph(modules);
  const pure = [...modules].filter(([, s]) => /\bPure\b[^.]*?no `vscode` import/.test(s)).map(([m]) => m);
  assert.ok(pure.includes("src/protocol") && pure.includes("src/panelMessages"), pure.join(" "));
  for (const m of pure) {
    const seen = new Set<string>();
    const walk = (x: string): void => {
      if (seen.has(x)) return;
      seen.add(x);
      const names = specifiers(modules.get(x) ?? "");
      assert.ok(!names.some((s) => s === "vscode" || s.startsWith("vscode-languageclient")), `${m} reaches vscode through ${x}`);
      (g.get(x) ?? []).forEach(walk);
    };
    walk(m);
  }
});

test("extension.ts only activates: activate and deactivate, no class, no state but the session", () => {
  const source = sources().get("src/extension") ?? "";
  const exported = [...source.matchAll(/^export\s+(?:async\s+)?(?:function|class|const|let|interface|type)\s+(\w+)/gm)].map((m) => m[1]);
  assert.deepEqual(exported.sort(), ["activate", "deactivate"]);
  assert.ok(!/\bclass\b/.test(source));
  assert.ok(source.split("\n").length < 60, `extension.ts has ${source.split("\n").length} lines`);
});
