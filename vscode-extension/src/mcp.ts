/**
 * `gmonlens mcp` offered to VS Code's agent: one MCP server definition per workspace folder
 * (`gmonlens mcp --workspace FOLDER`), started the way the language server is (`launch.ts`: an
 * installed gmonlens from `gmonlens.serverCommand`, else the bundled packages run by Python).
 *
 * Pure: the part of the `vscode` API used is passed in (`McpApi`), so that VS Code versions without
 * it (`vscode.lm.registerMcpServerDefinitionProvider` and `McpStdioServerDefinition` came with 1.101)
 * and the tests need no editor. Without the API, `registerMcpProvider` registers nothing.
 */

import type { LaunchPlan } from "./launch";

/** Must equal `contributes.mcpServerDefinitionProviders[0].id` in package.json. */
export const MCP_PROVIDER_ID = "gmonlens.mcpServers";

export interface McpFolder {
  name: string;
  /** Absolute path of the workspace folder. */
  path: string;
}

export interface McpServerSpec {
  label: string;
  command: string;
  args: string[];
  cwd: string;
}

/** The language server's argv with `serve` replaced by `mcp --workspace FOLDER` (and
 * `--trust-workspace` when VS Code trusts the workspace: only then are the paths its gmonlens.yaml
 * names outside the folder read, as for the language server). `python -m gmonlens_lsp` runs the
 * language server alone: the MCP server is `python -m gmonlens_cli mcp`. */
export function mcpArgs(plan: LaunchPlan, folder: string, trusted = false): string[] {
  const args = [...plan.args];
  const module = args.indexOf("-m");
  if (module >= 0 && args[module + 1] === "gmonlens_lsp") {
    args[module + 1] = "gmonlens_cli";
  }
  const at = args.lastIndexOf("serve");
  if (at >= 0) {
    args.splice(at, 1, "mcp");
  } else {
    args.push("mcp");
  }
  return [...args, "--workspace", folder, ...(trusted ? ["--trust-workspace"] : [])];
}

/** One server per folder; labels name the folder when there are several. */
export function mcpServers(plan: LaunchPlan, folders: readonly McpFolder[], trusted = false): McpServerSpec[] {
  return folders.map((f) => ({
    label: folders.length > 1 ? `gmonlens: ${f.name}` : "gmonlens",
    command: plan.command,
    args: mcpArgs(plan, f.path, trusted),
    cwd: f.path,
  }));
}

interface Disposable {
  dispose(): unknown;
}

interface Emitter {
  event: unknown;
  fire(): void;
  dispose(): unknown;
}

export interface McpProvider {
  onDidChangeMcpServerDefinitions: unknown;
  provideMcpServerDefinitions(): Promise<unknown[]>;
}

/** What this module needs of `vscode` (the MCP parts are optional: older versions lack them). */
export interface McpApi {
  lm?: { registerMcpServerDefinitionProvider?: (id: string, provider: McpProvider) => Disposable };
  McpStdioServerDefinition?: new (
    label: string,
    command: string,
    args?: string[],
    env?: Record<string, string | number | null>,
    version?: string,
  ) => { cwd?: unknown };
  Uri: { file(path: string): unknown };
  EventEmitter: new () => Emitter;
}

export interface McpRegistration extends Disposable {
  /** Tells VS Code to ask for the servers again (folders or settings changed). */
  refresh(): void;
}

/**
 * Registers the provider when the running VS Code has the API and accepts it, else returns
 * undefined (a refusal is logged, never thrown: activation goes on).
 * `servers` is asked each time VS Code wants the definitions; `version` lets VS Code notice a new
 * gmonlens (its tool list may differ).
 */
export function registerMcpProvider(
  api: McpApi,
  servers: () => Promise<McpServerSpec[]>,
  version: string,
  log: (message: string) => void = () => undefined,
): McpRegistration | undefined {
  const register = api.lm?.registerMcpServerDefinitionProvider;
  const Definition = api.McpStdioServerDefinition;
  if (typeof register !== "function" || typeof Definition !== "function") {
    return undefined;
  }
  const changed = new api.EventEmitter();
  const provider: McpProvider = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: async () =>
      (await servers()).map((s) => {
        const definition = new Definition(s.label, s.command, s.args, {}, version);
        definition.cwd = api.Uri.file(s.cwd);
        return definition;
      }),
  };
  let registration: Disposable;
  try {
    registration = register.call(api.lm, MCP_PROVIDER_ID, provider);
  } catch (e) {
    // VS Code 1.100 (code-server 4.100) has the function but wants another contribution point:
    // the agent goes without gmonlens's tools there; the rest of the extension must still start
    changed.dispose();
    log(`no MCP server for the agent: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
  return {
    refresh: () => changed.fire(),
    dispose: () => {
      registration.dispose();
      changed.dispose();
    },
  };
}
