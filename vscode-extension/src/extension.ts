/**
 * VS Code glue: starts `gmonlens serve` through vscode-languageclient, restarts it on settings changes,
 * shows the server's `gmonlens/status` in the status bar, and registers the commands.
 * The decisions (settings, launch, status text, quick pick items) live in the pure modules.
 */

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as vscode from "vscode";
import {
  type Executable,
  LanguageClient,
  type LanguageClientOptions,
  LogMessageNotification,
  type LogMessageParams,
  MessageType,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import { withCallGraphLink, registerCallGraph } from "./callGraphPanel";
import { PEEK_CALLERS, registerCommands } from "./commands";
import { DisasmView, withDisassemblyLenses, withDisassemblyLink } from "./disasmView";
import { HeatView, SHOW_LINE_HEAT, lineHeatShown } from "./heatview";
import {
  bundledCapstone,
  type CapstoneSource,
  capstoneAdvice,
  describePlan,
  type LaunchPlan,
  loggedWarningPopup,
  planLaunch,
  VERSION_SNIPPET,
} from "./launch";
import { type McpApi, type McpServerSpec, mcpServers, registerMcpProvider } from "./mcp";
import { type ServerStatus, parseStatus, pickStatus, statusView, stripSlash } from "./status";
import { type RawSettings, SERVER_KEYS, clientSettings, serverSettings } from "./settings";

const SECTION = "gmonlens";
const RESTART_DELAY_MS = 600;
const DOCUMENT_LANGUAGES = ["c", "cpp", "cuda-cpp", "objective-c", "objective-cpp"];

export class Gmonlens implements vscode.Disposable {
  readonly output = vscode.window.createOutputChannel("gmonlens", { log: true });
  client: LanguageClient | undefined;
  private readonly statusItem = vscode.window.createStatusBarItem("gmonlens.status", vscode.StatusBarAlignment.Left, 50);
  private readonly statuses = new Map<string, ServerStatus>();
  private readonly statusEvents = new vscode.EventEmitter<ServerStatus>();
  /** Each `gmonlens/status` the server sends (the call graph panel refreshes on `loaded`). */
  readonly onDidReceiveStatus = this.statusEvents.event;
  private launchProblem: string | undefined;
  /** How the running server was started (planLaunch), undefined before a start. */
  private origin: LaunchPlan["origin"] | undefined;
  /** A platform's package (bundled/native/capstone), not the platform-neutral one. */
  private readonly carriesCapstone: boolean;
  private restartTimer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly heat: HeatView;
  readonly disasm: DisasmView;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.heat = new HeatView(context.extensionUri, () => this.client, (line) => this.log(line));
    this.carriesCapstone = fs.existsSync(bundledCapstone({ root: context.extensionPath }));
    this.disasm = new DisasmView(
      context.extensionUri,
      () => this.client,
      (line) => this.log(line),
      (message) => capstoneAdvice(message, this.capstoneSource()),
    );
    this.statusItem.name = "gmonlens";
    this.statusItem.command = "gmonlens.showOutput";
    this.disposables.push(
      this.statusEvents,
      this.output,
      this.statusItem,
      this.heat,
      this.disasm,
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SECTION) && !onlyLineHeatToggled(e)) {
          this.scheduleRestart("settings changed");
        }
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.refreshStatus()),
      // paths a folder's gmonlens.yaml names outside it are read once the folder is trusted
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.scheduleRestart("workspace trusted")),
    );
    this.refreshStatus();
    this.statusItem.show();
  }

  /** Starts, or stops then starts, the server. Calls are serialized. */
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

  /** The workspace folder URI of the active editor, else of the only/first folder. */
  activeFolderUri(): string | undefined {
    const doc = vscode.window.activeTextEditor?.document;
    const folder = (doc && vscode.workspace.getWorkspaceFolder(doc.uri)) ?? vscode.workspace.workspaceFolders?.[0];
    return folder?.uri.toString();
  }

  private async doRestart(reason: string): Promise<void> {
    await this.stop();
    this.statuses.clear();
    this.launchProblem = undefined;
    this.refreshStatus();
    const scope = vscode.workspace.workspaceFolders?.[0];
    const { settings, problems } = clientSettings(readRaw(scope), variableContext(scope));
    problems.forEach((p) => this.log(p));
    const plan = await planLaunch(settings, { root: this.context.extensionPath }, process.platform, probePython);
    if ("problem" in plan) {
      this.launchProblem = plan.problem;
      this.log(`cannot start the server: ${plan.problem}`);
      this.refreshStatus();
      return;
    }
    this.log(`starting the server (${reason}): ${describePlan(plan)}`);
    this.origin = plan.origin;
    const executable: Executable = { command: plan.command, args: plan.args, transport: TransportKind.stdio };
    const client = new LanguageClient(SECTION, "gmonlens", { run: executable, debug: executable }, this.clientOptions());
    client.onNotification("gmonlens/status", (params: unknown) => this.onStatus(params));
    client.onNotification(LogMessageNotification.type, (params) => this.onLogMessage(client, params));
    client.onDidChangeState((e) => {
      if (this.client !== client) {
        return;
      }
      if (e.newState === State.Stopped) {
        this.launchProblem = "the server stopped; see the output";
      } else if (e.newState === State.Running) {
        this.launchProblem = undefined;
      }
      this.refreshStatus();
    });
    this.client = client;
    try {
      await client.start();
      this.launchProblem = undefined;
      this.refreshStatus();
    } catch (e) {
      this.launchProblem = `the server did not start: ${e instanceof Error ? e.message : String(e)}`;
      this.log(this.launchProblem);
      this.refreshStatus();
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

  private clientOptions(): LanguageClientOptions {
    const first = vscode.workspace.workspaceFolders?.[0];
    const init = serverSettings(readRaw(first), variableContext(first));
    init.problems.forEach((p) => this.log(p));
    return {
      documentSelector: DOCUMENT_LANGUAGES.map((language) => ({ scheme: "file", language })),
      outputChannel: this.output,
      traceOutputChannel: this.output,
      // trustedWorkspace: VS Code's workspace trust, never a setting a workspace can write
      initializationOptions: { ...init.settings, trustedWorkspace: vscode.workspace.isTrusted },
      middleware: {
        workspace: {
          // Any gmonlens.* change restarts the server (debounced), which then pulls the new values.
          didChangeConfiguration: async () => undefined,
          configuration: async (params, token, next) => {
            const defaults = await next(params, token);
            return params.items.map((item, i) => {
              if (item.section !== SECTION) {
                return Array.isArray(defaults) ? defaults[i] : null;
              }
              const folder = item.scopeUri
                ? vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(item.scopeUri))
                : undefined;
              const settings = serverSettings(readRaw(folder ?? first), variableContext(folder ?? first)).settings;
              return { ...settings, trustedWorkspace: vscode.workspace.isTrusted };
            });
          },
        },
        provideCodeLenses: async (document, token, next) => {
          const lenses = await next(document, token);
          return lenses ? withDisassemblyLenses(lenses.map(rewriteLens)) : lenses;
        },
        provideHover: async (document, position, token, next) => {
          const hover = await next(document, position, token);
          return hover ? withDisassemblyLink(withCallGraphLink(hover, document, position)) : hover;
        },
        resolveCodeLens: async (lens, token, next) => {
          const resolved = await next(lens, token);
          return resolved ? rewriteLens(resolved) : resolved;
        },
        // Line heat's hints follow the client's toggle (gmonlens.showLineHeat); the server sends them.
        provideInlayHints: (document, range, token, next) => (lineHeatShown() ? next(document, range, token) : []),
        executeCommand: async (command, args, next) => {
          if (command === "gmonlens.showCallers") {
            return vscode.commands.executeCommand(PEEK_CALLERS, ...args);
          }
          return next(command, args);
        },
      },
    };
  }

  /** `gmonlens mcp` for each local workspace folder, launched as the language server is (none
   * when no Python or command can be found: the output says why). */
  async mcpServers(): Promise<McpServerSpec[]> {
    const scope = vscode.workspace.workspaceFolders?.[0];
    const { settings } = clientSettings(readRaw(scope), variableContext(scope));
    const plan = await planLaunch(settings, { root: this.context.extensionPath }, process.platform, probePython);
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
    this.statuses.set(status.folder ? stripSlash(status.folder) : "", status);
    this.refreshStatus();
    if (status.state === "loaded") {
      this.heat.reset();
      void this.disasm.reset();
    }
    this.statusEvents.fire(status);
  }

  refreshStatus(): void {
    if (this.launchProblem !== undefined) {
      this.statusItem.text = "$(error) gprof: no server";
      this.statusItem.tooltip = `gmonlens: ${this.launchProblem}\nClick for the log.`;
      this.statusItem.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
      this.statusItem.command = "gmonlens.showOutput";
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
    this.statusItem.text = view.text;
    this.statusItem.tooltip = view.tooltip;
    this.statusItem.command = view.changes ? "gmonlens.showChanges" : "gmonlens.showOutput";
    this.statusItem.backgroundColor =
      view.kind === "normal" ? undefined : new vscode.ThemeColor(`statusBarItem.${view.kind}Background`);
  }

  dispose(): void {
    if (this.restartTimer) {
      clearTimeout(this.restartTimer);
    }
    this.disposables.forEach((d) => d.dispose());
  }
}


/** Whether a configuration change only toggled line heat (no restart: the view follows it). */
function onlyLineHeatToggled(e: vscode.ConfigurationChangeEvent): boolean {
  const restartKeys = [...SERVER_KEYS, "interpreter", "serverCommand", "trace.server"];
  return (
    e.affectsConfiguration(`${SECTION}.${SHOW_LINE_HEAT}`) &&
    !restartKeys.some((key) => e.affectsConfiguration(`${SECTION}.${key}`))
  );
}

/** Points the server's `gmonlens.showCallers` lens command at the client's call hierarchy command. */
function rewriteLens(lens: vscode.CodeLens): vscode.CodeLens {
  if (lens.command?.command === "gmonlens.showCallers") {
    lens.command = { ...lens.command, command: PEEK_CALLERS, tooltip: lens.command.tooltip ?? "Show the callers" };
  }
  return lens;
}

/** The "gmonlens" settings of a folder (or the window), with whether each key was set explicitly. */
function readRaw(scope: vscode.WorkspaceFolder | undefined): RawSettings {
  const cfg = vscode.workspace.getConfiguration(SECTION, scope);
  const raw: RawSettings = {};
  for (const key of [...SERVER_KEYS, "interpreter", "serverCommand"]) {
    const i = cfg.inspect(key);
    const isSet =
      i !== undefined &&
      [
        i.globalValue,
        i.workspaceValue,
        i.workspaceFolderValue,
        i.globalLanguageValue,
        i.workspaceLanguageValue,
        i.workspaceFolderLanguageValue,
      ].some((v) => v !== undefined);
    raw[key] = { value: cfg.get(key), isSet };
  }
  return raw;
}

function variableContext(folder: vscode.WorkspaceFolder | undefined) {
  return { folder: folder?.uri.scheme === "file" ? folder.uri.fsPath : undefined, home: os.homedir() };
}

function probePython(python: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(python, ["-c", VERSION_SNIPPET], { timeout: 10000 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });
}

let instance: Gmonlens | undefined;

/** Offers `gmonlens mcp` to VS Code's agent where the API exists (VS Code >= 1.101). */
function registerMcp(context: vscode.ExtensionContext, gmonlens: Gmonlens): void {
  const version = String(context.extension?.packageJSON?.version ?? "");
  let refused = false;
  const mcp = registerMcpProvider(vscode as unknown as McpApi, () => gmonlens.mcpServers(), version, (m) => {
    refused = true;
    gmonlens.log(m);
  });
  if (mcp === undefined) {
    if (!refused) {
      gmonlens.log("this VS Code has no MCP server API (needs 1.101 or later): gmonlens mcp is not offered to the agent");
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

export function activate(context: vscode.ExtensionContext): void {
  instance = new Gmonlens(context);
  context.subscriptions.push(instance, ...registerCommands(instance), ...registerCallGraph(instance, context.extensionUri));
  registerMcp(context, instance);
  // Not awaited: activation must not wait for Python or the server's initialize answer.
  void instance.restart("activation");
}

export async function deactivate(): Promise<void> {
  await instance?.stop();
  instance = undefined;
}
