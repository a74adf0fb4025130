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
import type { Gmonlens } from "./extension";
import { type CallGraph, nodeId, nodeTooltip, parseCallGraph, summary, toDot } from "./callGraphDot";
import { panelHtml } from "./callGraphHtml";
import { type FlameGraph, butterfly, butterflyHtml, parseFlameGraph } from "./flameGraph";
import { stripSlash } from "./status";

export const SHOW_CALL_GRAPH = "gmonlens.showCallGraph";
const REQUEST = "gmonlens/callGraph";
const FLAME_REQUEST = "gmonlens/flameGraph";
const FOLLOW_DELAY_MS = 350;
const PENDING_RETRY_MS = 1500; // while the server's estimate marks are pending (certaintyPending)
const PENDING_TRIES = 20;
const LANGUAGES = new Set(["c", "cpp", "cuda-cpp", "objective-c", "objective-cpp"]);

type Target =
  | { kind: "cursor"; uri: string; position: { line: number; character: number } }
  | { kind: "routine"; folder: string; routine: number; generation: number; name: string }
  | { kind: "whole"; folder: string | undefined };

interface Position {
  line: number;
  character: number;
}

class CallGraphPanel implements vscode.Disposable {
  private depth = 2;
  private whole = false;
  private pinned = false;
  private target: Target | undefined;
  private graph: CallGraph | undefined;
  private flame: FlameGraph | undefined;
  private flameView = false;
  private butterflyGraph: CallGraph | undefined;
  private ready = false;
  private pending: unknown[] = [];
  private seq = 0;
  private pendingTries = 0;
  private pendingTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly ext: Gmonlens,
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
      webview.onDidReceiveMessage((m) => this.onMessage(m)),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  /** Shows the graph for a target (the routine under a cursor, a routine of a graph, the whole program). */
  async show(target: Target, quietIfNone = false): Promise<void> {
    const seq = ++this.seq;
    const client = this.ext.client;
    if (!client || !client.isRunning()) {
      this.post({ type: "message", text: "The gmonlens server is not running; see the output." });
      return;
    }
    let params: Record<string, unknown>;
    if (target.kind === "cursor") {
      params = { textDocument: { uri: target.uri }, position: target.position, depth: this.depth };
    } else if (target.kind === "routine") {
      const { folder, routine, generation, name } = target;
      params = { folder, routine, generation, name, depth: this.depth };
    } else {
      params = target.folder ? { whole: true, folder: target.folder } : { whole: true };
    }
    if (!quietIfNone) {
      this.post({ type: "message", text: "Asking the server for the call graph…" });
    }
    let graph: CallGraph | undefined;
    try {
      graph = parseCallGraph(await client.sendRequest(REQUEST, params));
    } catch (e) {
      this.ext.log(`${REQUEST} failed: ${e instanceof Error ? e.message : String(e)}`);
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
    const nodes: Record<string, { tooltip: string; hasSource: boolean; center: boolean; name: string; source: string; percent: number }> = {};
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
    const client = this.ext.client;
    if (!client || !client.isRunning()) {
      this.post({ type: "message", text: "The gmonlens server is not running; see the output." });
      return;
    }
    const folder = this.flame?.folder || this.graph?.folder || this.ext.activeFolderUri();
    if (!quiet) {
      this.post({ type: "message", text: "Asking the server for the flame graph…" });
    }
    let flame: FlameGraph | undefined;
    try {
      flame = parseFlameGraph(await client.sendRequest(FLAME_REQUEST, folder ? { folder } : {}));
    } catch (e) {
      this.ext.log(`${FLAME_REQUEST} failed: ${e instanceof Error ? e.message : String(e)}`);
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
  onCursor(uri: string, position: Position): void {
    if (this.pinned || this.whole || this.flameView || !this.panel.visible) {
      return;
    }
    void this.show({ kind: "cursor", uri, position }, true);
  }

  private async onMessage(m: unknown): Promise<void> {
    if (typeof m !== "object" || m === null) {
      return;
    }
    const msg = m as Record<string, unknown>;
    switch (msg.type) {
      case "ready":
        this.ready = true;
        this.postState();
        this.pending.splice(0).forEach((p) => void this.panel.webview.postMessage(p));
        break;
      case "open":
        await this.openNode(String(msg.node), msg.centre === true);
        break;
      case "depth":
        this.depth = Math.min(Math.max(Number(msg.depth) || 0, 0), 10);
        this.postState();
        if (this.target && this.target.kind !== "whole") {
          await this.show(this.target);
        }
        break;
      case "whole":
        this.whole = msg.whole === true;
        this.postState();
        if (this.whole) {
          await this.show({ kind: "whole", folder: this.graph?.folder || this.ext.activeFolderUri() });
        } else {
          const editor = vscode.window.activeTextEditor;
          await this.show(editor ? cursorTarget(editor) : { kind: "whole", folder: undefined });
        }
        break;
      case "pinned":
        this.pinned = msg.pinned === true;
        this.postState();
        break;
      case "flameView":
        this.flameView = msg.flame === true;
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
        await this.openFrame(Number(msg.frame));
        break;
      case "butterfly":
        await this.showButterfly(Number(msg.frame));
        break;
      case "openButterfly": {
        const node = this.butterflyGraph?.nodes.find((n) => nodeId(n.id) === String(msg.node));
        if (node) {
          await openSource(node.uri, node.line, node.displayName);
        }
        break;
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
    const client = this.ext.client;
    if (!flame || !f || f.routine === null || !client) {
      return;
    }
    const params = { folder: flame.folder, routine: f.routine, generation: flame.generation, depth: 1 };
    let g: CallGraph | undefined;
    try {
      g = parseCallGraph(await client.sendRequest(REQUEST, params));
    } catch (e) {
      this.ext.log(`${REQUEST} failed: ${e instanceof Error ? e.message : String(e)}`);
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

  private post(message: unknown): void {
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

function cursorTarget(editor: vscode.TextEditor): Target {
  const p = editor.selection.active;
  return { kind: "cursor", uri: editor.document.uri.toString(), position: { line: p.line, character: p.character } };
}

function isSource(editor: vscode.TextEditor | undefined): editor is vscode.TextEditor {
  return editor !== undefined && editor.document.uri.scheme === "file" && LANGUAGES.has(editor.document.languageId);
}

/** The command, the cursor follower and the reload hook. */
export function registerCallGraph(ext: Gmonlens, extensionUri: vscode.Uri): vscode.Disposable[] {
  const mediaRoot = vscode.Uri.joinPath(extensionUri, "media");
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
    current = new CallGraphPanel(ext, panel, mediaRoot, () => {
      current = undefined;
    });
    return current;
  };

  const command = async (uri?: unknown, position?: unknown): Promise<void> => {
    const editor = vscode.window.activeTextEditor;
    let target: Target;
    if (typeof uri === "string" && isPosition(position)) {
      target = { kind: "cursor", uri, position: { line: position.line, character: position.character } };
    } else if (isSource(editor)) {
      target = cursorTarget(editor);
    } else {
      target = { kind: "whole", folder: ext.activeFolderUri() };
    }
    const panel = open();
    panel.setWhole(target.kind === "whole");
    await panel.show(target);
  };

  return [
    vscode.commands.registerCommand(SHOW_CALL_GRAPH, command),
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
    ext.onDidReceiveStatus((status) => {
      if (status.state === "loaded") {
        current?.onLoaded(status.folder);
      }
    }),
    { dispose: () => current?.panel.dispose() },
  ];
}

function isPosition(p: unknown): p is Position {
  return typeof p === "object" && p !== null && typeof (p as Position).line === "number" && typeof (p as Position).character === "number";
}

/**
 * A "Show call graph" command link under the server's hover when it holds a routine's call-graph entry
 * (its table header `| index | % time |`; not for a hover on inlined copies only), trusted for that
 * one command only.
 */
export function withCallGraphLink(hover: vscode.Hover, document: vscode.TextDocument, position: vscode.Position): vscode.Hover {
  const text = hover.contents.map((c) => (typeof c === "string" ? c : c.value)).join("\n");
  if (!text.includes("| index | % time |")) {
    return hover;
  }
  const args = encodeURIComponent(JSON.stringify([document.uri.toString(), { line: position.line, character: position.character }]));
  const link = new vscode.MarkdownString(`[$(type-hierarchy) Show call graph](command:${SHOW_CALL_GRAPH}?${args} "Open the call graph around this routine")`, true);
  link.isTrusted = { enabledCommands: [SHOW_CALL_GRAPH] };
  return new vscode.Hover([...hover.contents, link], hover.range);
}
