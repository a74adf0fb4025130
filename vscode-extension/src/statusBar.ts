/**
 * The status bar item: each folder's last `gmonlens/status`, shown for the active editor's folder
 * (status.ts words it), or why there is no server.
 */

import * as vscode from "vscode";
import { COMMANDS } from "./ids";
import type { ServerStatus } from "./protocol";
import { pickStatus, statusView, stripSlash } from "./status";

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("gmonlens.status", vscode.StatusBarAlignment.Left, 50);
  private readonly statuses = new Map<string, ServerStatus>();
  /** Why there is no server (shown instead of any status), undefined while one runs or starts. */
  private problem: string | undefined;
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly activeFolderUri: () => string | undefined) {
    this.item.name = "gmonlens";
    this.item.command = COMMANDS.showOutput;
    this.disposables = [this.item, vscode.window.onDidChangeActiveTextEditor(() => this.refresh())];
    this.refresh();
    this.item.show();
  }

  /** A folder's status (the server's notification, read). */
  set(status: ServerStatus): void {
    this.statuses.set(status.folder ? stripSlash(status.folder) : "", status);
    this.refresh();
  }

  /** A new server: no status yet, no problem. */
  clear(): void {
    this.statuses.clear();
    this.problem = undefined;
    this.refresh();
  }

  setProblem(problem: string | undefined): void {
    this.problem = problem;
    this.refresh();
  }

  refresh(): void {
    if (this.problem !== undefined) {
      this.item.text = "$(error) gprof: no server";
      this.item.tooltip = `gmonlens: ${this.problem}\nClick for the log.`;
      this.item.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
      this.item.command = COMMANDS.showOutput;
      return;
    }
    const active = this.activeFolderUri();
    const status = pickStatus(this.statuses, active ? stripSlash(active) : undefined);
    const folders = vscode.workspace.workspaceFolders ?? [];
    const name =
      folders.length > 1 && status?.folder
        ? folders.find((f) => stripSlash(f.uri.toString()) === stripSlash(status.folder ?? ""))?.name
        : undefined;
    const view = statusView(status, name);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.command = view.changes ? COMMANDS.showChanges : COMMANDS.showOutput;
    this.item.backgroundColor = view.kind === "normal" ? undefined : new vscode.ThemeColor(`statusBarItem.${view.kind}Background`);
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}
