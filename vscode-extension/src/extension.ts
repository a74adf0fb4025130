/**
 * The entry point: activation makes the session (session.ts: the server, the output, the status
 * bar, behind the `Ctx` interface of ctx.ts) and hands it to each feature, then starts the server.
 */

import type * as vscode from "vscode";
import { registerCallGraph } from "./callGraphPanel";
import { registerCommands } from "./commands";
import { DisasmView } from "./disasmView";
import { HeatView } from "./heatview";
import { registerMcp } from "./mcpProvider";
import { registerRecord } from "./record";
import { Session } from "./session";

let session: Session | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const s = new Session(context);
  session = s;
  // The views first: on a `loaded` status they refresh before the call graph panel asks again.
  context.subscriptions.push(
    s,
    new HeatView(s),
    new DisasmView(s),
    ...registerCommands(s),
    ...registerCallGraph(s),
    ...registerRecord(s),
  );
  registerMcp(context, s);
  // Not awaited: activation must not wait for Python or the server's initialize answer.
  void s.restart("activation");
}

export async function deactivate(): Promise<void> {
  await session?.stop();
  session = undefined;
}
