/**
 * Line heat in the editor: `gmonlens/lineHeat` painted as a gutter heat bar (four levels by share of
 * the total time) with overview-ruler marks, a hover on each heated line, and the toggle
 * (`gmonlens.showLineHeat`, command `gmonlens.toggleLineHeat`) that also hides the server's inlay
 * hints. Each file's heat is asked once per load (a `loaded` status clears what was fetched).
 */

import * as vscode from "vscode";
import { InlayHintRequest } from "vscode-languageclient/node";
import { SECTION, SHOW_LINE_HEAT, lineHeatShown } from "./config";
import type { Ctx } from "./ctx";
import { COMMANDS } from "./ids";
import { byLevel, hoverText } from "./lineheat";
import { type FileHeat, LINE_HEAT, lineHeatParams, parseLineHeat } from "./protocol";

/** Overview ruler colours of levels 1..4 (the gutter icons images/heat-N.svg use the same). */
const RULER = ["#f2c94c99", "#f2994acc", "#eb5757", "#b00020"];

export class HeatView implements vscode.Disposable {
  private readonly levels: vscode.TextEditorDecorationType[];
  private readonly fetched = new Map<string, Promise<FileHeat | undefined>>();
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
    this.disposables.push(
      ...this.levels,
      ctx.onDidReceiveStatus((status) => {
        if (status.state === "loaded") {
          this.reset();
        }
      }),
      vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach((e) => void this.paint(e))),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SECTION}.${SHOW_LINE_HEAT}`)) {
          this.refreshAll();
        }
      }),
      vscode.commands.registerCommand(COMMANDS.toggleLineHeat, async () => {
        const cfg = vscode.workspace.getConfiguration(SECTION);
        await cfg.update(SHOW_LINE_HEAT, !lineHeatShown(), vscode.ConfigurationTarget.Global);
      }),
    );
  }

  /** A profile was (re)loaded or the server restarted: fetch again and repaint. */
  reset(): void {
    this.fetched.clear();
    this.refreshAll();
  }

  private refreshAll(): void {
    vscode.window.visibleTextEditors.forEach((e) => void this.paint(e));
    this.refreshHints();
  }

  /** Ask VS Code for the inlay hints again (they follow the toggle). */
  private refreshHints(): void {
    const client = this.ctx.client;
    if (!client?.isRunning()) {
      return;
    }
    const feature = client.getFeature(InlayHintRequest.method);
    for (const editor of vscode.window.visibleTextEditors) {
      feature?.getProvider(editor.document)?.onDidChangeInlayHints.fire();
    }
  }

  async paint(editor: vscode.TextEditor): Promise<void> {
    const doc = editor.document;
    const heat = lineHeatShown() && doc.uri.scheme === "file" ? await this.heatOf(doc.uri.toString()) : undefined;
    const groups = heat ? byLevel(heat) : [[], [], [], []];
    this.levels.forEach((type, i) =>
      editor.setDecorations(
        type,
        groups[i]
          .filter((l) => l.line < doc.lineCount)
          .map((l) => ({ range: doc.lineAt(l.line).range, hoverMessage: new vscode.MarkdownString(hoverText(l)) })),
      ),
    );
  }

  private heatOf(uri: string): Promise<FileHeat | undefined> {
    const client = this.ctx.client;
    if (!client?.isRunning()) {
      return Promise.resolve(undefined);
    }
    let pending = this.fetched.get(uri);
    if (!pending) {
      pending = Promise.resolve(client.sendRequest(LINE_HEAT, lineHeatParams(uri))).then(
        (result) => parseLineHeat(result),
        (e: unknown) => {
          this.ctx.log(`${LINE_HEAT} failed: ${e instanceof Error ? e.message : String(e)}`);
          this.fetched.delete(uri);
          return undefined;
        },
      );
      this.fetched.set(uri, pending);
    }
    return pending;
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}
