/**
 * The extension's commands. Server work goes through workspace/executeCommand
 * (`gmonlens.reload`, `gmonlens.output.report`, `gmonlens.hottest`, `gmonlens.pinBaseline`,
 * `gmonlens.clearBaseline`, `gmonlens.changes`); the rest is VS Code UI.
 */

import * as vscode from "vscode";
import { ExecuteCommandRequest } from "vscode-languageclient/node";
import type { Gmonlens } from "./extension";
import { changeItems, parseChanges } from "./changes";
import { HOTTEST_LIMIT, type HotItem, type HottestBy, hottestItems, parseHottest } from "./hottest";

export const PEEK_CALLERS = "gmonlens.peekCallers";

/** Read-only documents holding report texts, by URI path. */
const REPORT_SCHEME = "gmonlens-report";
const reports = new Map<string, string>();
const reportChanged = new vscode.EventEmitter<vscode.Uri>();

export function registerCommands(ext: Gmonlens): vscode.Disposable[] {
  return [
    reportChanged,
    vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, {
      onDidChange: reportChanged.event,
      provideTextDocumentContent: (uri) => reports.get(uri.path) ?? "",
    }),
    vscode.commands.registerCommand("gmonlens.restartServer", () => ext.restart("restart command")),
    vscode.commands.registerCommand("gmonlens.showOutput", () => ext.output.show(true)),
    vscode.commands.registerCommand("gmonlens.reloadProfile", async () => {
      await serverCommand(ext, "gmonlens.reload", withFolder(ext, []));
    }),
    vscode.commands.registerCommand("gmonlens.showReport", () => showReport(ext)),
    vscode.commands.registerCommand("gmonlens.goToHottest", () => goToHottest(ext)),
    vscode.commands.registerCommand("gmonlens.pinProfileAsBaseline", () => pinBaseline(ext)),
    vscode.commands.registerCommand("gmonlens.clearProfileBaseline", async () => {
      await serverCommand(ext, "gmonlens.clearBaseline", withFolder(ext, []));
      void vscode.window.setStatusBarMessage("gmonlens: baseline cleared", 3000);
    }),
    vscode.commands.registerCommand("gmonlens.showChanges", () => showChanges(ext)),
    vscode.commands.registerCommand(PEEK_CALLERS, (uri: unknown, position: unknown) => peekCallers(uri, position)),
  ];
}

function withFolder(ext: Gmonlens, args: unknown[]): unknown[] {
  const folder = ext.activeFolderUri();
  return folder === undefined ? args : [...args, folder];
}

/** Runs a server command; undefined (after saying why) when there is no running server or it fails. */
async function serverCommand(ext: Gmonlens, command: string, args: unknown[]): Promise<unknown> {
  const client = ext.client;
  if (!client || !client.isRunning()) {
    void vscode.window.showWarningMessage("gmonlens: the server is not running; see the output.", "Show Output").then(
      (pick) => pick && ext.output.show(true),
    );
    return undefined;
  }
  try {
    return await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    ext.log(`${command} failed: ${message}`);
    void vscode.window.showErrorMessage(`gmonlens: ${command} failed: ${message}`);
    return undefined;
  }
}

async function showReport(ext: Gmonlens): Promise<void> {
  const text = await serverCommand(ext, "gmonlens.output.report", withFolder(ext, []));
  if (text === undefined) {
    return;
  }
  if (typeof text !== "string" || text === "") {
    void vscode.window.showInformationMessage("gmonlens: no report (no profile is loaded).");
    return;
  }
  const folderUri = ext.activeFolderUri();
  const folderName = folderUri ? vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(folderUri))?.name : undefined;
  const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/gprof report${folderName ? ` (${folderName})` : ""}.txt` });
  reports.set(uri.path, text);
  reportChanged.fire(uri);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: false });
}

interface HotPickItem extends vscode.QuickPickItem {
  hot: HotItem;
}

async function goToHottest(ext: Gmonlens): Promise<void> {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString());
  const pick = vscode.window.createQuickPick<HotPickItem>();
  const toggle = (by: HottestBy): vscode.QuickInputButton => ({
    iconPath: new vscode.ThemeIcon(by === "self" ? "watch" : "list-tree"),
    tooltip: by === "self" ? "Sort by total time (self + children)" : "Sort by self time",
  });
  let by: HottestBy = "self";
  const load = async () => {
    pick.busy = true;
    pick.title = `gmonlens: hottest routines by ${by} time`;
    pick.buttons = [toggle(by)];
    const routines = parseHottest(await serverCommand(ext, "gmonlens.hottest", withFolder(ext, [by, HOTTEST_LIMIT])));
    pick.items = hottestItems(routines, by, folders).map((hot) => ({
      label: hot.label,
      description: hot.description,
      detail: hot.detail,
      hot,
    }));
    pick.placeholder = routines.length > 0 ? "Type a routine's name" : "No profile is loaded";
    pick.busy = false;
  };
  pick.matchOnDescription = false;
  pick.matchOnDetail = true;
  pick.onDidTriggerButton(() => {
    by = by === "self" ? "total" : "self";
    void load();
  });
  pick.onDidAccept(async () => {
    const chosen = pick.selectedItems[0]?.hot;
    pick.hide();
    if (chosen?.uri === undefined) {
      if (chosen) {
        void vscode.window.showInformationMessage(`gmonlens: ${chosen.label} has no source in this workspace.`);
      }
      return;
    }
    const line = chosen.line ?? 0;
    const range = new vscode.Range(line, 0, line, 0);
    await vscode.window.showTextDocument(vscode.Uri.parse(chosen.uri), { selection: range });
  });
  pick.onDidHide(() => pick.dispose());
  pick.show();
  await load();
}

async function pinBaseline(ext: Gmonlens): Promise<void> {
  const pinned = await serverCommand(ext, "gmonlens.pinBaseline", withFolder(ext, []));
  if (pinned === undefined) {
    return;
  }
  if (!Array.isArray(pinned) || pinned.length === 0) {
    void vscode.window.showInformationMessage("gmonlens: no profile is loaded: nothing to pin.");
    return;
  }
  void vscode.window.setStatusBarMessage("gmonlens: current profile pinned as baseline", 3000);
}

interface ChangePickItem extends vscode.QuickPickItem {
  uri?: string;
  line?: number;
}

/** Regressions and improvements against the baseline, largest first; picking one opens it. */
async function showChanges(ext: Gmonlens): Promise<void> {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString());
  const result = await serverCommand(ext, "gmonlens.changes", withFolder(ext, []));
  if (result === undefined) {
    return;
  }
  const changes = parseChanges(result);
  if (changes.length === 0) {
    void vscode.window.showInformationMessage(
      "gmonlens: no change beyond sampling noise (or no baseline: run \"gmonlens: Pin Current Profile as Baseline\").",
    );
    return;
  }
  const items: ChangePickItem[] = changeItems(changes, folders).map((c) =>
    c.separator
      ? { label: c.label, kind: vscode.QuickPickItemKind.Separator }
      : { label: c.label, description: c.description, detail: c.detail, uri: c.uri, line: c.line },
  );
  const chosen = await vscode.window.showQuickPick(items, {
    title: "gmonlens: changes against the baseline",
    placeHolder: "Type a routine's name",
    matchOnDetail: true,
  });
  if (chosen === undefined) {
    return;
  }
  if (chosen.uri === undefined) {
    void vscode.window.showInformationMessage(`gmonlens: ${chosen.label} has no source in this workspace.`);
    return;
  }
  const line = chosen.line ?? 0;
  await vscode.window.showTextDocument(vscode.Uri.parse(chosen.uri), { selection: new vscode.Range(line, 0, line, 0) });
}

/** Opens VS Code's call hierarchy, incoming calls (gprof's callers), at a routine's name. */
async function peekCallers(uri: unknown, position: unknown): Promise<void> {
  if (typeof uri !== "string" && !(uri instanceof vscode.Uri)) {
    return;
  }
  const p = position as { line?: unknown; character?: unknown } | undefined;
  const line = typeof p?.line === "number" ? p.line : 0;
  const character = typeof p?.character === "number" ? p.character : 0;
  const target = typeof uri === "string" ? vscode.Uri.parse(uri) : uri;
  const at = new vscode.Position(line, character);
  await vscode.window.showTextDocument(target, { selection: new vscode.Range(at, at), preserveFocus: false });
  await vscode.commands.executeCommand("editor.showCallHierarchy");
  // The peek opens in the last direction used; make it "incoming" (a no-op when it already is).
  await Promise.resolve(vscode.commands.executeCommand("editor.showIncomingCalls")).catch(() => undefined);
}
