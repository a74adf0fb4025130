import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { bundledPlan, serverCommandPlan } from "../../src/launch";
import { MCP_PROVIDER_ID, type McpApi, type McpProvider, mcpArgs, mcpServers, registerMcpProvider } from "../../src/mcp";

const root = path.join(__dirname, "..", "..", "..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));

describe("gmonlens mcp command line", () => {
  test("the bundled server: serve becomes mcp --workspace FOLDER", () => {
    const plan = bundledPlan("python3", { root: "/ext" }, "PATH");
    assert.deepEqual(mcpArgs(plan, "/ws"), ["-I", path.join("/ext", "python", "launch.py"), "mcp", "--workspace", "/ws"]);
  });
  test("an installed gmonlens (gmonlens.serverCommand)", () => {
    assert.deepEqual(mcpArgs(serverCommandPlan(["/bin/gmonlens"]), "/ws"), ["mcp", "--workspace", "/ws"]);
    // a trusted workspace only: its gmonlens.yaml may then name paths outside the folder
    assert.deepEqual(mcpArgs(serverCommandPlan(["/bin/gmonlens"]), "/ws", true), ["mcp", "--workspace", "/ws", "--trust-workspace"]);
    assert.deepEqual(mcpArgs(serverCommandPlan(["python3", "-m", "gmonlens_lsp", "serve"]), "/w"), ["-m", "gmonlens_cli", "mcp", "--workspace", "/w"]);
    assert.deepEqual(mcpArgs(serverCommandPlan(["python3", "-m", "gmonlens_cli", "serve"]), "/w"), ["-m", "gmonlens_cli", "mcp", "--workspace", "/w"]);
  });
  test("one server per folder, labelled by folder when there are several", () => {
    const plan = serverCommandPlan(["gmonlens"]);
    assert.deepEqual(mcpServers(plan, [{ name: "a", path: "/a" }]).map((s) => s.label), ["gmonlens"]);
    const two = mcpServers(plan, [{ name: "a", path: "/a" }, { name: "b", path: "/b" }]);
    assert.deepEqual(two.map((s) => [s.label, s.cwd, s.args.at(-1)]), [["gmonlens: a", "/a", "/a"], ["gmonlens: b", "/b", "/b"]]);
  });
});

class FakeEmitter {
  fired = 0;
  disposed = false;
  readonly event = "event";
  fire(): void {
    this.fired++;
  }
  dispose(): void {
    this.disposed = true;
  }
}

class FakeDefinition {
  cwd?: unknown;
  constructor(
    readonly label: string,
    readonly command: string,
    readonly args?: string[],
    readonly env?: Record<string, string | number | null>,
    readonly version?: string,
  ) {}
}

describe("registration", () => {
  const spec = { label: "gmonlens", command: "gmonlens", args: ["mcp", "--workspace", "/ws"], cwd: "/ws" };

  test("VS Code without the MCP API: nothing registered, no error", () => {
    const api: McpApi = { Uri: { file: (p) => p }, EventEmitter: FakeEmitter };
    assert.equal(registerMcpProvider(api, async () => [spec], "1"), undefined);
    assert.equal(registerMcpProvider({ ...api, lm: {} }, async () => [spec], "1"), undefined);
    const onlyLm = { ...api, lm: { registerMcpServerDefinitionProvider: () => ({ dispose() {} }) } };
    assert.equal(registerMcpProvider(onlyLm, async () => [spec], "1"), undefined); // no McpStdioServerDefinition
  });

  test("VS Code 1.100 refuses the provider (another contribution point): logged, not thrown", () => {
    const refusing: McpApi = {
      Uri: { file: (p) => p },
      EventEmitter: FakeEmitter,
      lm: {
        registerMcpServerDefinitionProvider: () => {
          throw new Error("MCP configuration providers must be registered in contributes.modelContextServerCollections");
        },
      },
      McpStdioServerDefinition: class {
        cwd?: unknown;
      },
    };
    const logged: string[] = [];
    assert.equal(registerMcpProvider(refusing, async () => [spec], "1", (m) => logged.push(m)), undefined);
    assert.match(logged[0], /no MCP server for the agent: MCP configuration providers/);
  });

  test("VS Code with it: stdio definitions under the contributed id", async () => {
    const registered: [string, McpProvider][] = [];
    let disposed = false;
    const api: McpApi = {
      lm: {
        registerMcpServerDefinitionProvider(id, provider) {
          registered.push([id, provider]);
          return { dispose: () => (disposed = true) };
        },
      },
      McpStdioServerDefinition: FakeDefinition,
      Uri: { file: (p) => `file://${p}` },
      EventEmitter: FakeEmitter,
    };
    const reg = registerMcpProvider(api, async () => [spec], "0.1.0");
    assert.ok(reg);
    const [[id, provider]] = registered;
    assert.equal(id, MCP_PROVIDER_ID);
    const [def] = (await provider.provideMcpServerDefinitions()) as FakeDefinition[];
    assert.deepEqual([def.label, def.command, def.args, def.version, def.cwd], ["gmonlens", "gmonlens", spec.args, "0.1.0", "file:///ws"]);
    assert.equal(provider.onDidChangeMcpServerDefinitions, "event");
    reg.dispose();
    assert.ok(disposed);
  });

  test("package.json contributes the provider id and activates on it", () => {
    assert.deepEqual(manifest.contributes.mcpServerDefinitionProviders.map((p: { id: string }) => p.id), [MCP_PROVIDER_ID]);
    assert.ok(manifest.activationEvents.includes(`onMcpCollection:${MCP_PROVIDER_ID}`));
  });
});
