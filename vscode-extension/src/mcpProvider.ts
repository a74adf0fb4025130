/**
 * Offers `gmonlens mcp` to VS Code's agent where the API exists (VS Code >= 1.101): the provider of
 * mcp.ts registered, refreshed when the folders or the launch settings change.
 */

import * as vscode from "vscode";
import { SECTION } from "./config";
import { type McpApi, type McpServerSpec, registerMcpProvider } from "./mcp";

/** Where the definitions come from: the session, which launches the language server the same way. */
export interface McpSource {
  mcpServers(): Promise<McpServerSpec[]>;
  log(line: string): void;
}

export function registerMcp(context: vscode.ExtensionContext, source: McpSource): void {
  const version = String(context.extension?.packageJSON?.version ?? "");
  let refused = false;
  const mcp = registerMcpProvider(vscode as unknown as McpApi, () => source.mcpServers(), version, (m) => {
    refused = true;
    source.log(m);
  });
  if (mcp === undefined) {
    if (!refused) {
      source.log("this VS Code has no MCP server API (needs 1.101 or later): gmonlens mcp is not offered to the agent");
    }
    return;
  }
  context.subscriptions.push(
    mcp,
    vscode.workspace.onDidChangeWorkspaceFolders(() => mcp.refresh()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`${SECTION}.interpreter`) || e.affectsConfiguration(`${SECTION}.serverCommand`)) {
        mcp.refresh();
      }
    }),
  );
}
