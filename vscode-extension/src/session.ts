/**
 * The extension's state behind `Ctx`: the `gmonlens serve` process through vscode-languageclient
 * (started as launch.ts plans it, restarted on settings changes and when the workspace is trusted,
 * calls serialized), the output channel, the status bar fed by `gmonlens/status`, the server's
 * `window/logMessage`, and the MCP server definitions launched the same way.
 */

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as vscode from "vscode";
import {
  type Executable,
  LanguageClient,
  LogMessageNotification,
  type LogMessageParams,
  MessageType,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import { SECTION, onlyLineHeatToggled, readRaw, variableContext } from "./config";
import type { Ctx } from "./ctx";
import {
  bundledCapstone,
  type CapstoneSource,
  capstoneAdvice,
  describePlan,
  type LaunchPlan,
  type LaunchProblem,
  loggedWarningPopup,
  planLaunch,
  VERSION_SNIPPET,
} from "./launch";
import { type McpServerSpec, mcpServers } from "./mcp";
import { clientOptions } from "./middleware";
import { STATUS, type ServerStatus, parseStatus } from "./protocol";
import { clientSettings } from "./settings";
import { StatusBar } from "./statusBar";

const RESTART_DELAY_MS = 600;

export class Session implements Ctx, vscode.Disposable {
  readonly output = vscode.window.createOutputChannel("gmonlens", { log: true });
  readonly extensionUri: vscode.Uri;
  readonly workspaceState: vscode.Memento;
  client: LanguageClient | undefined;
  private readonly statusBar = new StatusBar(() => this.activeFolderUri());
  private readonly statusEvents = new vscode.EventEmitter<ServerStatus>();
  readonly onDidReceiveStatus = this.statusEvents.event;
  /** How the running server was started (planLaunch), undefined before a start. */
  private origin: LaunchPlan["origin"] | undefined;
  /** A platform's package (bundled/native/capstone), not the platform-neutral one. */
  private readonly carriesCapstone: boolean;
  private restartTimer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly context: vscode.ExtensionContext) {
    this.extensionUri = context.extensionUri;
    this.workspaceState = context.workspaceState;
    this.carriesCapstone = fs.existsSync(bundledCapstone({ root: context.extensionPath }));
    this.disposables = [
      this.statusEvents,
      this.output,
      this.statusBar,
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SECTION) && !onlyLineHeatToggled(e)) {
          this.scheduleRestart("settings changed");
        }
      }),
      // paths a folder's gmonlens.yaml names outside it are read once the folder is trusted
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.scheduleRestart("workspace trusted")),
    ];
  }

  restart(reason: string): Promise<void> {
    this.queue = this.queue.then(() => this.doRestart(reason)).catch((e) => this.log(`restart failed: ${e}`));
    return this.queue;
  }

  scheduleRestart(reason: string): void {
    if (this.restartTimer) {
      clearTimeout(this.restartTimer);
    }
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      void this.restart(reason);
    }, RESTART_DELAY_MS);
  }

  log(line: string): void {
    this.output.info(`[client] ${line}`);
  }

  activeFolderUri(): string | undefined {
    const doc = vscode.window.activeTextEditor?.document;
    const folder = (doc && vscode.workspace.getWorkspaceFolder(doc.uri)) ?? vscode.workspace.workspaceFolders?.[0];
    return folder?.uri.toString();
  }

  capstoneAdvice(message: string): string {
    return capstoneAdvice(message, this.capstoneSource());
  }

  private async doRestart(reason: string): Promise<void> {
    await this.stop();
    this.statusBar.clear();
    const scope = vscode.workspace.workspaceFolders?.[0];
    const { settings, problems } = clientSettings(readRaw(scope), variableContext(scope));
    problems.forEach((p) => this.log(p));
    const plan = await planLaunch(settings, { root: this.context.extensionPath }, process.platform, probePython);
    if ("problem" in plan) {
      this.log(`cannot start the server: ${plan.problem}`);
      this.statusBar.setProblem(plan.problem);
      return;
    }
    this.log(`starting the server (${reason}): ${describePlan(plan)}`);
    this.origin = plan.origin;
    const executable: Executable = { command: plan.command, args: plan.args, transport: TransportKind.stdio };
    const options = clientOptions(this.output, (line) => this.log(line));
    const client = new LanguageClient(SECTION, "gmonlens", { run: executable, debug: executable }, options);
    client.onNotification(STATUS, (params: unknown) => this.onStatus(params));
    client.onNotification(LogMessageNotification.type, (params) => this.onLogMessage(client, params));
    client.onDidChangeState((e) => {
      if (this.client !== client) {
        return;
      }
      if (e.newState === State.Stopped) {
        this.statusBar.setProblem("the server stopped; see the output");
      } else if (e.newState === State.Running) {
        this.statusBar.setProblem(undefined);
      }
    });
    this.client = client;
    try {
      await client.start();
      this.statusBar.setProblem(undefined);
    } catch (e) {
      const problem = `the server did not start: ${e instanceof Error ? e.message : String(e)}`;
      this.log(problem);
      this.statusBar.setProblem(problem);
    }
  }

  /**
   * The server's window/logMessage (this handler replaces vscode-languageclient's): to the output as
   * that one writes it, and as a popup when loggedWarningPopup gives one (-c without capstone).
   */
  private onLogMessage(client: LanguageClient, params: LogMessageParams): void {
    switch (params.type) {
      case MessageType.Error:
        client.error(params.message, undefined, false);
        break;
      case MessageType.Warning:
        client.warn(params.message, undefined, false);
        break;
      case MessageType.Info:
        client.info(params.message, undefined, false);
        break;
      case MessageType.Debug:
        client.debug(params.message, undefined, false);
        break;
      default:
        this.output.appendLine(params.message);
    }
    const popup = params.type === MessageType.Warning ? loggedWarningPopup(params.message, this.capstoneSource()) : undefined;
    if (popup !== undefined) {
      void vscode.window.showWarningMessage(popup);
    }
  }

  /** Where the server's capstone would come from, for the advice when it has none. */
  private capstoneSource(): CapstoneSource {
    if (this.origin === "serverCommand") {
      return "serverCommand";
    }
    return this.carriesCapstone ? "platform" : "neutral";
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop(3000);
      } catch (e) {
        this.log(`stopping the server: ${e}`);
      }
      await client.dispose().catch(() => undefined);
    }
  }

  launchPlan(): Promise<LaunchPlan | LaunchProblem> {
    const scope = vscode.workspace.workspaceFolders?.[0];
    const { settings } = clientSettings(readRaw(scope), variableContext(scope));
    return planLaunch(settings, { root: this.context.extensionPath }, process.platform, probePython);
  }

  /** `gmonlens mcp` for each local workspace folder, launched as the language server is (none
   * when no Python or command can be found: the output says why). */
  async mcpServers(): Promise<McpServerSpec[]> {
    const plan = await this.launchPlan();
    if ("problem" in plan) {
      this.log(`no MCP server for the agent: ${plan.problem}`);
      return [];
    }
    const folders = (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === "file")
      .map((f) => ({ name: f.name, path: f.uri.fsPath }));
    return mcpServers(plan, folders, vscode.workspace.isTrusted);
  }

  private onStatus(params: unknown): void {
    const status = parseStatus(params);
    if (!status) {
      this.log(`ignored a malformed gmonlens/status: ${JSON.stringify(params)}`);
      return;
    }
    this.statusBar.set(status);
    this.statusEvents.fire(status);
  }

  dispose(): void {
    if (this.restartTimer) {
      clearTimeout(this.restartTimer);
    }
    this.disposables.forEach((d) => d.dispose());
  }
}

function probePython(python: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(python, ["-c", VERSION_SNIPPET], { timeout: 10000 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });
}
