/**
 * The messages between the call graph panel (callGraphPanel.ts, in the extension host) and its
 * webview's script (webview/callGraphView.ts): one typed set both sides compile against. The
 * panel reads what the webview posts with `readFromWebview` (a webview's message is data, not
 * trusted to have the shape); the webview gets only what the panel posted. Pure: no `vscode` import.
 */

import type { FlameGraph } from "./protocol";

/** The toolbar's state, owned by the panel (the webview shows it; `fit` is the webview's own). */
export interface PanelState {
  depth: number;
  whole: boolean;
  pinned: boolean;
  flame: boolean;
}

/** What the webview needs of a graph node beside the DOT (keyed by the node's DOT id, `r12`). */
export interface NodeInfo {
  tooltip: string;
  hasSource: boolean;
  center: boolean;
  name: string;
  /** "file.c:12" (1-based line), "" without a place in the workspace */
  source: string;
  percent: number;
}

/** Panel -> webview. */
export type ToWebview =
  | { type: "state"; state: PanelState }
  | { type: "graph"; dot: string; nodes: Record<string, NodeInfo>; summary: string; generation: number }
  | { type: "flame"; flame: FlameGraph }
  | { type: "butterfly"; html: string; name: string }
  | { type: "message"; text: string; clear?: boolean };

/** Webview -> panel. `open`: a graph node clicked (`centre`: centre the graph on it too);
 * `openFrame`/`butterfly`: a flame graph frame Ctrl/Cmd-clicked (its source) or Alt-clicked (its
 * callers and callees); `openButterfly`: a row of the butterfly clicked. */
export type FromWebview =
  | { type: "ready" }
  | { type: "open"; node: string; centre: boolean }
  | { type: "depth"; depth: number }
  | { type: "whole"; whole: boolean }
  | { type: "pinned"; pinned: boolean }
  | { type: "flameView"; flame: boolean }
  | { type: "openFrame"; frame: number }
  | { type: "butterfly"; frame: number }
  | { type: "openButterfly"; node: string };

export const MAX_DEPTH = 10;

/** A webview's message as the panel takes it: undefined when it is none of FromWebview's kinds;
 * values of the wrong type read as the panel always read them (a depth that is not a number is 0,
 * clamped to 0..MAX_DEPTH; a flag is true only when it is `true`). */
export function readFromWebview(m: unknown): FromWebview | undefined {
  if (typeof m !== "object" || m === null) {
    return undefined;
  }
  const msg = m as Record<string, unknown>;
  switch (msg.type) {
    case "ready":
      return { type: "ready" };
    case "open":
      return { type: "open", node: String(msg.node), centre: msg.centre === true };
    case "depth":
      return { type: "depth", depth: Math.min(Math.max(Number(msg.depth) || 0, 0), MAX_DEPTH) };
    case "whole":
      return { type: "whole", whole: msg.whole === true };
    case "pinned":
      return { type: "pinned", pinned: msg.pinned === true };
    case "flameView":
      return { type: "flameView", flame: msg.flame === true };
    case "openFrame":
    case "butterfly":
      return { type: msg.type, frame: Number(msg.frame) };
    case "openButterfly":
      return { type: "openButterfly", node: String(msg.node) };
    default:
      return undefined;
  }
}
