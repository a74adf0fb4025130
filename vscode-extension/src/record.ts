/**
 * "gmonlens: Record a Profile": asks for the command line (the folder's remembered ones and its
 * launch.json programs offered, or typed), runs `gmonlens record` in a terminal the person sees
 * (started as the server is: the same interpreter and bundle, launch.ts), then loads the recording
 * (`gmonlens.reload`: discovery finds `<folder>/gmonlens-record/`) and says what came of it: one
 * notification per diagnosis code, with its fix, and a "Record again with ..." button where
 * recording again with other options is the fix. Trusted workspaces only; the command runs because
 * the person chose it here, never from a workspace's files. The decisions are recordPlan.ts's.
 */

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { ExecuteCommandRequest } from "vscode-languageclient/node";
import type { Ctx } from "./ctx";
import { COMMANDS } from "./ids";
import { SERVER_COMMANDS, folderArguments, parseRecording, type RecordSummary } from "./protocol";
import {
  type RecordTarget,
  commandLine,
  launchTargets,
  readRemembered,
  recordArgv,
  recordDir,
  recordNotices,
  remember,
  splitCommandLine,
  terminalArgs,
  withOptions,
} from "./recordPlan";

const MANIFEST_CAP = 16 << 20; // bytes of record.json read (the engine's cap)
const POLL_MS = 300;
const running = new Set<string>(); // folders whose recording runs

export function registerRecord(ctx: Ctx): vscode.Disposable[] {
  return [vscode.commands.registerCommand(COMMANDS.recordProfile, recordProfile(ctx))];
}

/** The command (arguments ignored: what runs is what the person picks or types here). */
export function recordProfile(ctx: Ctx): () => Promise<void> {
  return async () => {
    if (!vscode.workspace.isTrusted) {
      const manage = "Manage Workspace Trust";
      const pick = await vscode.window.showWarningMessage(
        "gmonlens: Record a Profile runs a program, so it is available only in a trusted workspace.",
        manage,
      );
      if (pick === manage) {
        await vscode.commands.executeCommand("workbench.trust.manage");
      }
      return;
    }
    if (process.platform === "win32") {
      void vscode.window.showErrorMessage("gmonlens: recording runs gprof's glibc profiling: open the folder in WSL or on a Linux machine.");
      return;
    }
    const folder = await pickFolder(ctx);
    const target = folder && (await askTarget(ctx, folder));
    if (folder && target) {
      await record(ctx, folder, target);
    }
  };
}

async function pickFolder(ctx: Ctx): Promise<vscode.WorkspaceFolder | undefined> {
  const local = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file");
  const active = ctx.activeFolderUri();
  const chosen = local.find((f) => f.uri.toString() === active) ?? (local.length === 1 ? local[0] : undefined);
  if (chosen || local.length === 0) {
    if (!chosen) void vscode.window.showErrorMessage("gmonlens: open a folder on this machine to record a profile in it.");
    return chosen;
  }
  return vscode.window.showWorkspaceFolderPick({ placeHolder: "The folder to record a profile in" });
}

const stateKey = (folder: vscode.WorkspaceFolder) => `gmonlens.record.${folder.uri.toString()}`;

interface TargetItem extends vscode.QuickPickItem {
  target?: RecordTarget;
}

function describeCwd(folder: vscode.WorkspaceFolder, cwd: string | undefined): string | undefined {
  if (cwd === undefined || cwd === folder.uri.fsPath) return undefined;
  const rel = path.relative(folder.uri.fsPath, cwd);
  return `in ${rel.startsWith("..") ? cwd : rel}`;
}

/** The quick pick: a typed command line, or one offered (remembered, then launch.json's). */
function askTarget(ctx: Ctx, folder: vscode.WorkspaceFolder): Promise<RecordTarget | undefined> {
  const remembered = readRemembered(ctx.workspaceState.get(stateKey(folder)));
  const vars = { folder: folder.uri.fsPath, home: os.homedir(), env: process.env };
  const launches = launchTargets(vscode.workspace.getConfiguration("launch", folder.uri).get("configurations"), vars);
  const offered: TargetItem[] = [
    ...remembered.map((t) => ({ label: commandLine(t.argv), description: [describeCwd(folder, t.cwd), ...(t.options ?? [])].filter(Boolean).join(" "), detail: "recorded before", target: t })),
    ...launches.map((t) => ({ label: commandLine(t.argv), description: describeCwd(folder, t.cwd), detail: `launch.json: ${t.name}`, target: { argv: t.argv, cwd: t.cwd } })),
  ];
  const pick = vscode.window.createQuickPick<TargetItem>();
  pick.title = "gmonlens: Record a Profile";
  pick.placeholder = "The program and its arguments (built with gcc -pg -g), e.g. ./build/app --size 1000";
  pick.matchOnDescription = true;
  const typed = (): TargetItem[] => {
    const value = pick.value.trim();
    if (value === "" || offered.some((i) => i.label === value)) return [];
    const split = splitCommandLine(value);
    return "argv" in split
      ? [{ label: `$(record) ${value}`, detail: `run in ${folder.name}, without a shell`, alwaysShow: true, target: { argv: split.argv } }]
      : [{ label: `$(error) ${value}`, detail: split.problem, alwaysShow: true }];
  };
  pick.items = offered;
  pick.onDidChangeValue(() => (pick.items = [...typed(), ...offered]));
  return new Promise((resolve) => {
    pick.onDidAccept(() => {
      const chosen = pick.selectedItems[0]?.target;
      if (chosen) {
        resolve(chosen);
        pick.hide();
      }
    });
    pick.onDidHide(() => {
      resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
}

/** Runs the recording in a terminal, waits for it, loads it and says what came of it. */
async function record(ctx: Ctx, folder: vscode.WorkspaceFolder, target: RecordTarget): Promise<void> {
  const key = folder.uri.toString();
  if (running.has(key)) {
    void vscode.window.showInformationMessage(`gmonlens: a recording already runs in ${folder.name} (see its terminal).`);
    return;
  }
  const plan = await ctx.launchPlan();
  if ("problem" in plan) {
    void vscode.window.showErrorMessage(`gmonlens: cannot run gmonlens record: ${plan.problem}`);
    return;
  }
  await ctx.workspaceState.update(stateKey(folder), remember(readRemembered(ctx.workspaceState.get(stateKey(folder))), target));
  const outDir = recordDir(folder.uri.fsPath);
  const manifest = path.join(outDir, "record.json");
  const before = mtime(manifest);
  const statusDir = fs.mkdtempSync(path.join(os.tmpdir(), "gmonlens-record-"));
  const statusFile = path.join(statusDir, "status");
  const command = recordArgv(plan, outDir, target);
  ctx.log(`recording: ${commandLine(command)}`);
  running.add(key);
  try {
    const terminal = vscode.window.createTerminal({
      name: `gmonlens record: ${path.basename(target.argv[0])}`,
      cwd: target.cwd ?? folder.uri.fsPath,
      iconPath: new vscode.ThemeIcon("record"),
      ...terminalArgs(statusFile, command),
    });
    terminal.show();
    const status = await ended(terminal, statusFile);
    const rec = mtime(manifest) > before ? readRecording(manifest) : undefined;
    if (rec === undefined) {
      const why = status === undefined ? "the terminal was closed" : `gmonlens record exited with status ${status}`;
      void vscode.window.showErrorMessage(`gmonlens: no recording: ${why} (its terminal says why).`);
      return;
    }
    await reload(ctx, folder);
    tell(ctx, folder, target, rec);
  } finally {
    running.delete(key);
    fs.rmSync(statusDir, { recursive: true, force: true });
  }
}

function mtime(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function readRecording(file: string): RecordSummary | undefined {
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > MANIFEST_CAP) return undefined;
    return parseRecording(JSON.parse(fs.readFileSync(file, "utf8")));
  } catch {
    return undefined;
  }
}

/** The command's exit status once the terminal's script wrote it; undefined when the terminal
 * closed first. */
function ended(terminal: vscode.Terminal, statusFile: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const finish = (status: number | undefined) => {
      clearInterval(timer);
      closed.dispose();
      resolve(status);
    };
    const timer = setInterval(() => {
      fs.readFile(statusFile, "utf8", (err, text) => {
        if (!err && /^\d+$/.test(text)) finish(Number(text));
      });
    }, POLL_MS);
    const closed = vscode.window.onDidCloseTerminal((t) => t === terminal && finish(undefined));
  });
}

async function reload(ctx: Ctx, folder: vscode.WorkspaceFolder): Promise<void> {
  const client = ctx.client;
  if (!client?.isRunning()) {
    ctx.log("recorded, but the server is not running: the profile loads when it starts");
    return;
  }
  try {
    await client.sendRequest(ExecuteCommandRequest.type, {
      command: SERVER_COMMANDS.reload,
      arguments: folderArguments(folder.uri.toString()),
    });
  } catch (e) {
    ctx.log(`reloading after the recording failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function tell(ctx: Ctx, folder: vscode.WorkspaceFolder, target: RecordTarget, rec: RecordSummary): void {
  for (const notice of recordNotices(rec)) {
    const show =
      notice.level === "error"
        ? vscode.window.showErrorMessage
        : notice.level === "warning"
          ? vscode.window.showWarningMessage
          : vscode.window.showInformationMessage;
    const again = notice.rerun ? `Record again with ${notice.rerun.join(" ")}` : undefined;
    void Promise.resolve(again ? show(notice.text, again) : show(notice.text)).then((pick) => {
      if (pick === again && notice.rerun) {
        void record(ctx, folder, { ...target, options: withOptions(target.options ?? [], notice.rerun) });
      }
    });
  }
  const profiles = vscode.workspace.getConfiguration("gmonlens", folder.uri).get<string[]>("profiles") ?? [];
  if (rec.usable && profiles.length > 0) {
    void vscode.window.showWarningMessage(
      "gmonlens: the gmonlens.profiles setting names this folder's profiles, so the recording is not shown: clear it to see the recording.",
    );
  }
}
