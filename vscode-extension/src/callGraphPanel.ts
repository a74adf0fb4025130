/**
 * "gmonlens: Show Call Graph": a webview panel with the call graph around the routine under the cursor
 * (or the whole program), from the server's `gmonlens/callGraph` request, drawn by Graphviz
 * (WebAssembly) inside the webview. Clicking a node opens its source; unpinned, the panel follows the
 * routine under the cursor; it is asked again whenever the folder's profile (re)loads.
 * The DOT text and the HTML come from the pure modules callGraphDot.ts and callGraphHtml.ts.
 * The "Flame graph" view shows the server's `gmonlens/flameGraph` (laid out, zoomed and searched in the
 * webview by flameGraph.ts); Alt+click on a frame shows that routine's butterfly (callers and callees
 * with exact call counts) from a depth-1 `gmonlens/callGraph`.
 */

import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { nodeId, nodeTooltip, summary, toDot } from "./callGraphDot";
import { panelHtml } from "./callGraphHtml";
import type { Ctx } from "./ctx";
import { butterfly, butterflyHtml } from "./flameGraph";
import { COMMANDS } from "./ids";
import { type FromWebview, type NodeInfo, type ToWebview, readFromWebview } from "./panelMessages";
import {
  CALL_GRAPH,
  type CallGraph,
  FLAME_GRAPH,
  type FlameGraph,
  type GraphTarget,
  type LinePosition,
  callGraphParams,
  flameGraphParams,
  parseCallGraph,
  parseFlameGraph,
} from "./protocol";
import { stripSlash } from "./status";

const FOLLOW_DELAY_MS = 350;
const PENDING_RETRY_MS = 1500; // while the server's estimate marks are pending (certaintyPending)
const PENDING_TRIES = 20;
const LANGUAGES = new Set(["c", "cpp", "cuda-cpp", "objective-c", "objective-cpp"]);

class CallGraphPanel implements vscode.Disposable {
  private depth = 2;
  private whole = false;
  private pinned = false;
  private target: GraphTarget | undefined;
  private graph: CallGraph | undefined;
  private flame: FlameGraph | undefined;
  private flameView = false;
  private butterflyGraph: CallGraph | undefined;
  private ready = false;
  private pending: ToWebview[] = [];
  private seq = 0;
  private pendingTries = 0;
  private pendingTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly ctx: Ctx,
    readonly panel: vscode.WebviewPanel,
    mediaRoot: vscode.Uri,
    private readonly onDispose: () => void,
  ) {
    const webview = panel.webview;
    webview.html = panelHtml({
      cspSource: webview.cspSource,
      nonce: randomBytes(16).toString("base64"),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(mediaRoot, "callGraphView.js")).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(mediaRoot, "callGraph.css")).toString(),
    });
    this.disposables.push(
      webview.onDidReceiveMessage((m: unknown) => {
        const message = readFromWebview(m);
        if (message) {
          void this.onMessage(message);
        }
      }),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  /** Shows the graph for a target (the routine under a cursor, a routine of a graph, the whole program). */
  async show(target: GraphTarget, quietIfNone = false): Promise<void> {
    const seq = ++this.seq;
    const client = this.ctx.client;
    if (!client || !client.isRunning()) {
      this.post({ type: "message", text: "The gmonlens server is not running; see the output." });
      return;
    }
    const params = callGraphParams(target, this.depth);
    if (!quietIfNone) {
      this.post({ type: "message", text: "Asking the server for the call graph…" });
    }
    let graph: CallGraph | undefined;
    try {
      graph = parseCallGraph(await client.sendRequest(CALL_GRAPH, params));
    } catch (e) {
      this.ctx.log(`${CALL_GRAPH} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (seq !== this.seq) {
      return; // a newer request was made meanwhile
    }
    if (!graph) {
      if (!quietIfNone) {
        this.post({
          type: "message",
          text:
            target.kind === "whole"
              ? "No profile is loaded."
              : "No routine with a profile here: put the cursor on a routine's name (its definition or a call), or tick Whole program.",
          clear: this.graph === undefined,
        });
      }
      return;
    }
    this.graph = graph;
    const centre = graph.nodes.find((n) => n.id === graph.center);
    this.target =
      target.kind === "whole" || !centre
        ? { kind: "whole", folder: graph.folder || undefined }
        : { kind: "routine", folder: graph.folder, routine: centre.id, generation: graph.generation, name: centre.name };
    this.panel.title = centre ? `Call graph: ${centre.displayName}` : "Call graph: whole program";
    const nodes: Record<string, NodeInfo> = {};
    for (const n of graph.nodes) {
      const source = n.uri !== null ? `${n.uri.split("/").pop() ?? ""}:${(n.line ?? 0) + 1}` : "";
      nodes[nodeId(n.id)] = { tooltip: nodeTooltip(n), hasSource: n.uri !== null, center: n.id === graph.center, name: n.displayName, source, percent: n.percent };
    }
    this.postState();
    this.post({ type: "graph", dot: toDot(graph), nodes, summary: summary(graph), generation: graph.generation });
    this.refreshWhilePending(graph, seq);
  }

  /** While the server's certainty computes (a large profile, some seconds after a load) the edges
   * come unmarked: ask again, quietly, until they are marked (a few tries, none once the panel
   * shows something else). */
  private refreshWhilePending(graph: CallGraph, seq: number): void {
    if (!graph.certaintyPending) {
      this.pendingTries = 0;
      return;
    }
    if (++this.pendingTries > PENDING_TRIES) {
      return;
    }
    clearTimeout(this.pendingTimer);
    this.pendingTimer = setTimeout(() => {
      if (seq === this.seq && this.target) {
        void this.show(this.target, true);
      }
    }, PENDING_RETRY_MS);
  }

  /** The flame graph of the folder's profile (the graph's folder, else the active one). */
  async showFlame(quiet = false): Promise<void> {
    const client = this.ctx.client;
    if (!client || !client.isRunning()) {
      this.post({ type: "message", text: "The gmonlens server is not running; see the output." });
      return;
    }
    const folder = this.flame?.folder || this.graph?.folder || this.ctx.activeFolderUri();
    if (!quiet) {
      this.post({ type: "message", text: "Asking the server for the flame graph…" });
    }
    let flame: FlameGraph | undefined;
    try {
      flame = parseFlameGraph(await client.sendRequest(FLAME_GRAPH, flameGraphParams(folder)));
    } catch (e) {
      this.ctx.log(`${FLAME_GRAPH} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!flame) {
      this.post({ type: "message", text: "No profile is loaded.", clear: true });
      return;
    }
    this.flame = flame;
    this.panel.title = "Flame graph";
    this.post({ type: "flame", flame });
  }

  /** The folder's profile (re)loaded: ask again (a routine is re-found by name in the new generation). */
  onLoaded(folder: string | undefined): void {
    const shown = this.flameView ? this.flame?.folder : this.graph?.folder;
    if (folder && shown && stripSlash(folder) !== stripSlash(shown)) {
      return;
    }
    if (this.flameView) {
      void this.showFlame(true);
      return;
    }
    if (this.target) {
      void this.show(this.target, true);
    }
  }

  /** The cursor moved (debounced): unpinned and not on the whole program, follow the routine under it. */
  onCursor(uri: string, position: LinePosition): void {
    if (this.pinned || this.whole || this.flameView || !this.panel.visible) {
      return;
    }
    void this.show({ kind: "cursor", uri, position }, true);
  }

  private async onMessage(msg: FromWebview): Promise<void> {
    switch (msg.type) {
      case "ready":
        this.ready = true;
        this.postState();
        this.pending.splice(0).forEach((p) => void this.panel.webview.postMessage(p));
        break;
      case "open":
        await this.openNode(msg.node, msg.centre);
        break;
      case "depth":
        this.depth = msg.depth;
        this.postState();
        if (this.target && this.target.kind !== "whole") {
          await this.show(this.target);
        }
        break;
      case "whole":
        this.whole = msg.whole;
        this.postState();
        if (this.whole) {
          await this.show({ kind: "whole", folder: this.graph?.folder || this.ctx.activeFolderUri() });
        } else {
          const editor = vscode.window.activeTextEditor;
          await this.show(editor ? cursorTarget(editor) : { kind: "whole", folder: undefined });
        }
        break;
      case "pinned":
        this.pinned = msg.pinned;
        this.postState();
        break;
      case "flameView":
        this.flameView = msg.flame;
        this.postState();
        if (this.flameView) {
          await this.showFlame();
        } else {
          this.panel.title = "Call graph";
          const editor = vscode.window.activeTextEditor;
          await this.show(this.target ?? (editor ? cursorTarget(editor) : { kind: "whole", folder: undefined }));
        }
        break;
      case "openFrame":
        await this.openFrame(msg.frame);
        break;
      case "butterfly":
        await this.showButterfly(msg.frame);
        break;
      case "openButterfly": {
        const node = this.butterflyGraph?.nodes.find((n) => nodeId(n.id) === msg.node);
        if (node) {
          await openSource(node.uri, node.line, node.displayName);
        }
        break;
      }
      default: {
        const never: never = msg;
        return never;
      }
    }
  }

  private async openFrame(i: number): Promise<void> {
    const f = this.flame?.frames[i];
    if (f) {
      await openSource(f.uri, f.line, f.name);
    }
  }

  /** The butterfly of a frame's routine: a depth-1 call graph around it, callers above, callees below. */
  private async showButterfly(i: number): Promise<void> {
    const flame = this.flame;
    const f = flame?.frames[i];
    const client = this.ctx.client;
    if (!flame || !f || f.routine === null || !client) {
      return;
    }
    const params = callGraphParams({ kind: "routine", folder: flame.folder, routine: f.routine, generation: flame.generation }, 1);
    let g: CallGraph | undefined;
    try {
      g = parseCallGraph(await client.sendRequest(CALL_GRAPH, params));
    } catch (e) {
      this.ctx.log(`${CALL_GRAPH} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    const b = g ? butterfly(g) : undefined;
    if (!g || !b) {
      return;
    }
    this.butterflyGraph = g;
    this.post({ type: "butterfly", html: butterflyHtml(b), name: b.name });
  }

  private async openNode(id: string, centre: boolean): Promise<void> {
    const graph = this.graph;
    const node = graph?.nodes.find((n) => nodeId(n.id) === id);
    if (!graph || !node) {
      return;
    }
    await openSource(node.uri, node.line, node.displayName);
    if ((centre || node.uri === null || (!this.pinned && !this.whole)) && !this.whole) {
      this.seq++; // the cursor move above must not race with this request
      await this.show({ kind: "routine", folder: graph.folder, routine: node.id, generation: graph.generation, name: node.name });
    }
  }

  private postState(): void {
    this.post({ type: "state", state: { depth: this.depth, whole: this.whole, pinned: this.pinned, flame: this.flameView } });
  }

  private post(message: ToWebview): void {
    if (this.ready) {
      void this.panel.webview.postMessage(message);
    } else {
      this.pending.push(message);
    }
  }

  setWhole(whole: boolean): void {
    this.whole = whole;
    this.postState();
  }

  dispose(): void {
    clearTimeout(this.pendingTimer);
    this.disposables.forEach((d) => d.dispose());
    this.onDispose();
  }
}

/** Opens `uri` at 0-based `line`, the cursor on the routine's name when the line holds it. */
async function openSource(uri: string | null, line: number | null, displayName: string): Promise<void> {
  if (uri === null) {
    return;
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
  const at0 = Math.min(line ?? 0, doc.lineCount - 1);
  const base = displayName.replace(/\(.*$/, "").split("::").pop() ?? "";
  const col = base ? Math.max(doc.lineAt(at0).text.indexOf(base), 0) : 0;
  const at = new vscode.Position(at0, col);
  await vscode.window.showTextDocument(doc, {
    viewColumn: vscode.ViewColumn.One,
    selection: new vscode.Range(at, at),
    preserveFocus: false,
  });
}

function cursorTarget(editor: vscode.TextEditor): GraphTarget {
  const p = editor.selection.active;
  return { kind: "cursor", uri: editor.document.uri.toString(), position: { line: p.line, character: p.character } };
}

function isSource(editor: vscode.TextEditor | undefined): editor is vscode.TextEditor {
  return editor !== undefined && editor.document.uri.scheme === "file" && LANGUAGES.has(editor.document.languageId);
}

/** The command, the cursor follower and the reload hook. */
export function registerCallGraph(ctx: Ctx): vscode.Disposable[] {
  const mediaRoot = vscode.Uri.joinPath(ctx.extensionUri, "media");
  let current: CallGraphPanel | undefined;
  let timer: NodeJS.Timeout | undefined;

  const open = (): CallGraphPanel => {
    if (current) {
      current.panel.reveal(vscode.ViewColumn.Beside, true);
      return current;
    }
    const panel = vscode.window.createWebviewPanel(
      "gmonlens.callGraph",
      "Call graph",
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: [mediaRoot], retainContextWhenHidden: true },
    );
    current = new CallGraphPanel(ctx, panel, mediaRoot, () => {
      current = undefined;
    });
    return current;
  };

  const command = async (uri?: unknown, position?: unknown): Promise<void> => {
    const editor = vscode.window.activeTextEditor;
    let target: GraphTarget;
    if (typeof uri === "string" && isPosition(position)) {
      target = { kind: "cursor", uri, position: { line: position.line, character: position.character } };
    } else if (isSource(editor)) {
      target = cursorTarget(editor);
    } else {
      target = { kind: "whole", folder: ctx.activeFolderUri() };
    }
    const panel = open();
    panel.setWhole(target.kind === "whole");
    await panel.show(target);
  };

  return [
    vscode.commands.registerCommand(COMMANDS.showCallGraph, command),
    vscode.window.onDidChangeTextEditorSelection((e) => {
      if (!current || !isSource(e.textEditor)) {
        return;
      }
      const uri = e.textEditor.document.uri.toString();
      const p = e.selections[0]?.active;
      if (!p) {
        return;
      }
      if (timer) {
        clearTimeout(timer);
      }
      timer = setTimeout(() => current?.onCursor(uri, { line: p.line, character: p.character }), FOLLOW_DELAY_MS);
    }),
    ctx.onDidReceiveStatus((status) => {
      if (status.state === "loaded") {
        current?.onLoaded(status.folder);
      }
    }),
    { dispose: () => current?.panel.dispose() },
  ];
}

function isPosition(p: unknown): p is LinePosition {
  return typeof p === "object" && p !== null && typeof (p as LinePosition).line === "number" && typeof (p as LinePosition).character === "number";
}
