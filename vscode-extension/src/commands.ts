/**
 * The extension's commands, each a factory over `Ctx` (rust-analyzer's model) that `registerCommands`
 * registers. Server work goes through workspace/executeCommand (`gmonlens.reload`, `gmonlens.report`,
 * `gmonlens.hottest`, `gmonlens.pinBaseline`, `gmonlens.clearBaseline`, `gmonlens.changes`,
 * `gmonlens.tests`, `gmonlens.selectTest`: arguments and answers in protocol.ts); the rest is VS Code UI.
 */

import * as vscode from "vscode";
import { ExecuteCommandRequest } from "vscode-languageclient/node";
import { changeItems } from "./changes";
import type { Ctx } from "./ctx";
import { HOTTEST_LIMIT, type HotItem, hottestItems } from "./hottest";
import { COMMANDS } from "./ids";
import {
  type HottestBy,
  SERVER_COMMANDS,
  folderArguments,
  hottestArguments,
  parseChanges,
  parseHottest,
  parseTests,
  parseTestsList,
  pinnedAny,
  selectTestArguments,
} from "./protocol";
import { type TestItem, chosenText, testItems } from "./testPick";

type Cmd = (...args: unknown[]) => unknown;

/** Read-only documents holding report texts, by URI path. */
const REPORT_SCHEME = "gmonlens-report";

class ReportDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? "";
  }

  set(uri: vscode.Uri, text: string): void {
    this.texts.set(uri.path, text);
    this.changed.fire(uri);
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export function registerCommands(ctx: Ctx): vscode.Disposable[] {
  const reports = new ReportDocuments();
  const commands: [string, Cmd][] = [
    [COMMANDS.restartServer, restartServer(ctx)],
    [COMMANDS.showOutput, showOutput(ctx)],
    [COMMANDS.reloadProfile, reloadProfile(ctx)],
    [COMMANDS.showReport, showReport(ctx, reports)],
    [COMMANDS.goToHottest, goToHottest(ctx)],
    [COMMANDS.pinProfileAsBaseline, pinBaseline(ctx)],
    [COMMANDS.clearProfileBaseline, clearBaseline(ctx)],
    [COMMANDS.showChanges, showChanges(ctx)],
    [COMMANDS.pickTest, pickTest(ctx)],
    [COMMANDS.peekCallers, peekCallers()],
  ];
  return [
    reports,
    vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, reports),
    ...commands.map(([id, run]) => vscode.commands.registerCommand(id, run)),
  ];
}

export function restartServer(ctx: Ctx): Cmd {
  return () => ctx.restart("restart command");
}

export function showOutput(ctx: Ctx): Cmd {
  return () => ctx.output.show(true);
}

export function reloadProfile(ctx: Ctx): Cmd {
  return async () => {
    await serverCommand(ctx, SERVER_COMMANDS.reload, folderArguments(ctx.activeFolderUri()));
  };
}

export function clearBaseline(ctx: Ctx): Cmd {
  return async () => {
    await serverCommand(ctx, SERVER_COMMANDS.clearBaseline, folderArguments(ctx.activeFolderUri()));
    void vscode.window.setStatusBarMessage("gmonlens: baseline cleared", 3000);
  };
}

/** Runs a server command; undefined (after saying why) when there is no running server or it fails. */
async function serverCommand(ctx: Ctx, command: string, args: unknown[]): Promise<unknown> {
  const client = ctx.client;
  if (!client || !client.isRunning()) {
    void vscode.window
      .showWarningMessage("gmonlens: the server is not running; see the output.", "Show Output")
      .then((pick) => pick && ctx.output.show(true));
    return undefined;
  }
  try {
    return await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    ctx.log(`${command} failed: ${message}`);
    void vscode.window.showErrorMessage(`gmonlens: ${command} failed: ${message}`);
    return undefined;
  }
}

interface TestPickItem extends vscode.QuickPickItem {
  item: TestItem;
}

/** A quick pick of the folder's tests; the one picked (or the whole suite) is loaded instead. */
export function pickTest(ctx: Ctx): Cmd {
  return async () => {
    const folder = ctx.activeFolderUri();
    const listings = parseTests(await serverCommand(ctx, SERVER_COMMANDS.tests, folderArguments(folder)));
    const listing = listings.find((l) => l.suite !== undefined) ?? listings[0];
    if (!listing || listing.suite === undefined) {
      void vscode.window.showInformationMessage(
        `gmonlens: ${listing?.problem ?? "no gmonlens test folder"} (run your tests with \`gmonlens test -- ctest\`).`,
      );
      return;
    }
    const items: TestPickItem[] = testItems(listing).map((item) => ({
      label: item.label,
      description: item.description,
      detail: item.detail,
      picked: item.picked,
      item,
    }));
    const picked = await vscode.window.showQuickPick(items, {
      title: `gmonlens: show a test's profile (${listing.tests.length} tests in ${listing.suite})`,
      matchOnDescription: true,
    });
    if (!picked) {
      return;
    }
    const result = await serverCommand(ctx, SERVER_COMMANDS.selectTest, selectTestArguments(listing.folder, picked.item.choice));
    const chosen = parseTestsList(result);
    if (chosen) {
      void vscode.window.setStatusBarMessage(chosenText(chosen), 5000);
    }
  };
}

export function showReport(ctx: Ctx, reports: ReportDocuments): Cmd {
  return async () => {
    const text = await serverCommand(ctx, SERVER_COMMANDS.report, folderArguments(ctx.activeFolderUri()));
    if (text === undefined) {
      return;
    }
    if (typeof text !== "string" || text === "") {
      void vscode.window.showInformationMessage("gmonlens: no report (no profile is loaded).");
      return;
    }
    const folderUri = ctx.activeFolderUri();
    const folderName = folderUri ? vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(folderUri))?.name : undefined;
    const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/gprof report${folderName ? ` (${folderName})` : ""}.txt` });
    reports.set(uri, text);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: false });
  };
}

interface HotPickItem extends vscode.QuickPickItem {
  hot: HotItem;
}

export function goToHottest(ctx: Ctx): Cmd {
  return async () => {
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
      const routines = parseHottest(await serverCommand(ctx, SERVER_COMMANDS.hottest, hottestArguments(by, HOTTEST_LIMIT)));
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
  };
}

export function pinBaseline(ctx: Ctx): Cmd {
  return async () => {
    const pinned = await serverCommand(ctx, SERVER_COMMANDS.pinBaseline, folderArguments(ctx.activeFolderUri()));
    if (pinned === undefined) {
      return;
    }
    if (!pinnedAny(pinned)) {
      void vscode.window.showInformationMessage("gmonlens: no profile is loaded: nothing to pin.");
      return;
    }
    void vscode.window.setStatusBarMessage("gmonlens: current profile pinned as baseline", 3000);
  };
}

interface ChangePickItem extends vscode.QuickPickItem {
  uri?: string;
  line?: number;
}

/** Regressions and improvements against the baseline, largest first; picking one opens it. */
export function showChanges(ctx: Ctx): Cmd {
  return async () => {
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString());
    const result = await serverCommand(ctx, SERVER_COMMANDS.changes, folderArguments(ctx.activeFolderUri()));
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
  };
}

/** Opens VS Code's call hierarchy, incoming calls (gprof's callers), at a routine's name (the
 * server's lens command, `gmonlens.showCallers`, with its arguments: middleware.ts). */
export function peekCallers(): Cmd {
  return async (uri: unknown, position: unknown) => {
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
  };
}
