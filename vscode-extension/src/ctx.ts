/**
 * What the commands, views and panels have of the extension: a small interface (rust-analyzer's
 * `Ctx` is the model). `Session` (session.ts) is its one implementation; extension.ts makes it and
 * hands it to each feature's factory, so no feature imports the session (nor the session a feature).
 */

import type * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import type { LaunchPlan, LaunchProblem } from "./launch";
import type { ServerStatus } from "./protocol";

export interface Ctx {
  /** The extension's folder (images/, media/). */
  readonly extensionUri: vscode.Uri;
  /** The `gmonlens` output channel (the client's lines and the server's log). */
  readonly output: vscode.LogOutputChannel;
  /** The language client of the current server (undefined before a start and after a stop; ask
   * `isRunning()` before sending). */
  readonly client: LanguageClient | undefined;
  /** Each `gmonlens/status` the server sends, after the status bar took it (views refresh on
   * `loaded`). */
  readonly onDidReceiveStatus: vscode.Event<ServerStatus>;
  /** A line of the client's in the output channel. */
  log(line: string): void;
  /** The workspace folder URI of the active editor, else of the only/first folder. */
  activeFolderUri(): string | undefined;
  /** Starts, or stops then starts, the server; calls are serialized. */
  restart(reason: string): Promise<void>;
  /** The server's message about a missing capstone with what to do here (launch.ts capstoneAdvice). */
  capstoneAdvice(message: string): string;
  /** How `gmonlens` is started here (the server's interpreter and bundle, or gmonlens.serverCommand):
   * `gmonlens record` runs the same way; or why it cannot be. */
  launchPlan(): Promise<LaunchPlan | LaunchProblem>;
  /** The workspace's memory (the extension context's workspaceState). */
  readonly workspaceState: vscode.Memento;
}
