/**
 * The annotated disassembly in VS Code: `gmonlens.openDisassembly` (command palette, editor context
 * menu, the lens beside each routine's figures that middleware.ts adds) and `gmonlens.openListing`
 * (the hover's link) open the routine's listing, a
 * read-only `gmonlens-disasm:` document whose text and figures come from `gmonlens/disassembly`.
 * The listing gets per-instruction heat in the gutter (as line heat), the figures as inlay hints,
 * links from call instructions to the callee's source and from source lines back to the source,
 * cursor sync both ways (the lines of one source line are highlighted in the other editor), and it
 * is fetched again after each reload.
 */

import * as vscode from "vscode";
import type { Ctx } from "./ctx";
import { DISASM_SCHEME, callSpan, callTooltip, hintLabel, hinted, instructionsByLevel, listingLinesOf, sourceOfLine } from "./disasm";
import { COMMANDS } from "./ids";
import { DISASSEMBLY, type Listing, disassemblyParams, listingError, parseListing } from "./protocol";

const RULER = ["#f2c94c99", "#f2994acc", "#eb5757", "#b00020"];

export class DisasmView implements vscode.Disposable {
  private readonly listings = new Map<string, Listing>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly hintsChanged = new vscode.EventEmitter<void>();
  private readonly levels: vscode.TextEditorDecorationType[];
  private readonly cursor = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor("editor.rangeHighlightBackground"),
    isWholeLine: true,
  });
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly ctx: Ctx) {
    this.levels = RULER.map((color, i) =>
      vscode.window.createTextEditorDecorationType({
        gutterIconPath: vscode.Uri.joinPath(ctx.extensionUri, "images", `heat-${i + 1}.svg`),
        gutterIconSize: "contain",
        overviewRulerColor: color,
        overviewRulerLane: vscode.OverviewRulerLane.Right,
      }),
    );
    const selector: vscode.DocumentSelector = { scheme: DISASM_SCHEME };
    this.disposables.push(
      this.changed,
      this.hintsChanged,
      this.cursor,
      ...this.levels,
      ctx.onDidReceiveStatus((status) => {
        if (status.state === "loaded") {
          void this.reset();
        }
      }),
      vscode.workspace.registerTextDocumentContentProvider(DISASM_SCHEME, {
        onDidChange: this.changed.event,
        provideTextDocumentContent: (uri) => this.content(uri),
      }),
      vscode.languages.registerInlayHintsProvider(selector, {
        onDidChangeInlayHints: this.hintsChanged.event,
        provideInlayHints: (doc, range) => this.hints(doc, range),
      }),
      vscode.languages.registerDocumentLinkProvider(selector, { provideDocumentLinks: (doc) => this.links(doc) }),
      vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach((e) => this.paint(e))),
      vscode.window.onDidChangeTextEditorSelection((e) => this.sync(e.textEditor)),
      vscode.commands.registerCommand(COMMANDS.openDisassembly, (uri?: unknown, position?: unknown, symbol?: unknown) =>
        this.show(uri, position, symbol),
      ),
      vscode.commands.registerCommand(COMMANDS.openListing, (uri: unknown) => this.open(String(uri))),
    );
  }

  /** The listing of the routine at a position (default: the active editor's cursor). */
  async show(uri?: unknown, position?: unknown, symbol?: unknown): Promise<vscode.TextEditor | undefined> {
    const editor = vscode.window.activeTextEditor;
    const docUri = typeof uri === "string" ? uri : uri instanceof vscode.Uri ? uri.toString() : editor?.document.uri.toString();
    const pos =
      position && typeof position === "object" && "line" in position
        ? (position as { line: number; character: number })
        : editor?.selection.active;
    if (!docUri || !pos) {
      void vscode.window.showInformationMessage("gmonlens: put the cursor on a routine's name first.");
      return undefined;
    }
    const params = disassemblyParams({
      uri: docUri,
      position: { line: pos.line, character: pos.character },
      symbol: typeof symbol === "string" ? symbol : undefined,
    });
    const started = Date.now();
    const listing = await this.fetch(params);
    this.ctx.log(`disassembly at ${docUri}:${pos.line + 1}: ${listing ? `${listing.displayName} in ${Date.now() - started} ms` : "none"}`);
    if (!listing) {
      if (!this.warned) {  // the server's reason (no capstone, ...) was shown already
        void vscode.window.showInformationMessage("gmonlens: no routine with a profile at the cursor.");
      }
      return undefined;
    }
    return this.open(listing.uri);
  }

  private async open(uri: string): Promise<vscode.TextEditor | undefined> {
    let doc: vscode.TextDocument;
    try {
      doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri, true));
    } catch (e) {
      this.ctx.log(`cannot open ${uri}: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
    const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false });
    this.paint(editor);
    return editor;
  }

  /** A profile was (re)loaded: fetch every open listing again and repaint. */
  async reset(): Promise<void> {
    for (const uri of [...this.listings.keys()]) {
      const fresh = await this.fetch(disassemblyParams({ listing: uri }));
      if (fresh) {
        this.changed.fire(vscode.Uri.parse(uri, true));
      }
    }
    this.hintsChanged.fire();
    vscode.window.visibleTextEditors.forEach((e) => this.paint(e));
  }

  /** Whether the last fetch showed the server's error (a warning). */
  private warned = false;

  private async fetch(params: ReturnType<typeof disassemblyParams>): Promise<Listing | undefined> {
    this.warned = false;
    const client = this.ctx.client;
    if (!client?.isRunning()) {
      return undefined;
    }
    try {
      const result = await client.sendRequest(DISASSEMBLY, params);
      const listing = parseListing(result);
      if (!listing) {
        this.ctx.log(`${DISASSEMBLY} ${JSON.stringify(params)}: ${JSON.stringify(result)?.slice(0, 300)}`);
        const error = listingError(result);
        if (error !== undefined) {
          void vscode.window.showWarningMessage(`gmonlens: ${this.ctx.capstoneAdvice(error)}`);
          this.warned = true;
        }
      }
      if (listing) {
        this.listings.set(listing.uri, listing);
        this.listings.set(vscode.Uri.parse(listing.uri, true).toString(), listing);
      }
      return listing;
    } catch (e) {
      this.ctx.log(`${DISASSEMBLY} failed: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  }

  private async content(uri: vscode.Uri): Promise<string> {
    const key = uri.toString();
    const listing = this.listings.get(key) ?? (await this.fetch(disassemblyParams({ listing: key })));
    return listing?.text ?? "gmonlens: no listing (is the profile loaded?)\n";
  }

  private listingOf(doc: vscode.TextDocument): Listing | undefined {
    return doc.uri.scheme === DISASM_SCHEME ? this.listings.get(doc.uri.toString()) : undefined;
  }

  paint(editor: vscode.TextEditor): void {
    const listing = this.listingOf(editor.document);
    if (!listing) {
      return;
    }
    const groups = instructionsByLevel(listing);
    const doc = editor.document;
    this.levels.forEach((type, i) =>
      editor.setDecorations(
        type,
        groups[i]
          .filter((x) => x.line < doc.lineCount)
          .map((x) => ({
            range: doc.lineAt(x.line).range,
            hoverMessage: `${hintLabel(x)} of ${listing.displayName}'s self time (gprof's samples)`,
          })),
      ),
    );
  }

  private hints(doc: vscode.TextDocument, range: vscode.Range): vscode.InlayHint[] {
    const listing = this.listingOf(doc);
    if (!listing) {
      return [];
    }
    return listing.instructions
      .filter((x) => hinted(x) && x.line >= range.start.line && x.line <= range.end.line && x.line < doc.lineCount)
      .map((x) => {
        const hint = new vscode.InlayHint(doc.lineAt(x.line).range.end, hintLabel(x));
        hint.paddingLeft = true;
        return hint;
      });
  }

  private links(doc: vscode.TextDocument): vscode.DocumentLink[] {
    const listing = this.listingOf(doc);
    if (!listing) {
      return [];
    }
    const out: vscode.DocumentLink[] = [];
    const target = (path: string, line: number) => vscode.Uri.file(path).with({ fragment: `L${Math.max(line, 1)}` });
    for (const x of listing.instructions) {
      if (x.line >= doc.lineCount) {
        continue;
      }
      const text = doc.lineAt(x.line).text;
      for (const c of x.calls) {
        const span = callSpan(text, c.callee);
        if (span && c.path) {
          const link = new vscode.DocumentLink(new vscode.Range(x.line, span[0], x.line, span[1]), target(c.path, c.sourceLine ?? 1));
          link.tooltip = callTooltip(c);
          out.push(link);
        }
      }
    }
    for (const s of listing.sources) {
      if (s.path && s.line < doc.lineCount) {
        const text = doc.lineAt(s.line).text;
        const start = text.length - text.trimStart().length;
        const end = text.indexOf(" ", start) > 0 ? text.indexOf(" ", start) : text.length;
        out.push(new vscode.DocumentLink(new vscode.Range(s.line, start, s.line, end), target(s.path, s.sourceLine)));
      }
    }
    return out;
  }

  /** Cursor sync: highlight, in the other visible editors, the lines of the cursor's source line. */
  private sync(editor: vscode.TextEditor): void {
    const doc = editor.document;
    const line = editor.selection.active.line;
    const listing = this.listingOf(doc);
    if (listing) {
      const src = sourceOfLine(listing, line);
      for (const other of vscode.window.visibleTextEditors) {
        if (other.document.uri.scheme !== "file") {
          continue;
        }
        const hit = src && other.document.uri.fsPath === src.path && src.line <= other.document.lineCount;
        other.setDecorations(this.cursor, hit ? [other.document.lineAt(src.line - 1).range] : []);
        if (hit) {
          other.revealRange(other.document.lineAt(src.line - 1).range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
        }
      }
      return;
    }
    if (doc.uri.scheme !== "file") {
      return;
    }
    for (const other of vscode.window.visibleTextEditors) {
      const shown = this.listingOf(other.document);
      if (!shown) {
        continue;
      }
      const lines = listingLinesOf(shown, doc.uri.fsPath, line + 1).filter((l) => l < other.document.lineCount);
      other.setDecorations(this.cursor, lines.map((l) => other.document.lineAt(l).range));
      if (lines.length) {
        other.revealRange(other.document.lineAt(lines[0]).range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
    }
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}
