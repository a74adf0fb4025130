/**
 * The `gmonlens.hottest` answer (read by protocol.ts) as quick pick items. Pure: no `vscode` import.
 */

import type { HotRoutine, HottestBy } from "./protocol";
import { seconds } from "./units";

export interface HotItem {
  label: string;
  description: string;
  detail: string;
  uri?: string;
  line?: number;
}

export const HOTTEST_LIMIT = 100;

/** A short workspace-relative place for the detail line: "src/eval.c:42" (1-based line). */
export function place(uri: string | undefined, line: number | undefined, folderUris: readonly string[]): string {
  if (uri === undefined) {
    return "no source";
  }
  let shown = uri;
  for (const f of folderUris) {
    const prefix = f.endsWith("/") ? f : `${f}/`;
    if (uri.startsWith(prefix)) {
      shown = uri.slice(prefix.length);
      break;
    }
  }
  if (shown === uri) {
    shown = decodeURIComponent(uri.replace(/^file:\/\//, ""));
  } else {
    shown = decodeURIComponent(shown);
  }
  return line === undefined ? shown : `${shown}:${line + 1}`;
}

/** Quick pick items in the server's order; the description leads with the sort key. */
export function hottestItems(routines: HotRoutine[], by: HottestBy, folderUris: readonly string[]): HotItem[] {
  return routines.map((r) => {
    const self = `self ${seconds(r.selfSeconds)}`;
    const total = `total ${seconds(r.totalSeconds)}`;
    const calls = r.calls === "" ? "" : ` · ${r.calls} calls`;
    return {
      label: r.name,
      description: `${r.percent.toFixed(1)}% · ${by === "self" ? `${self} · ${total}` : `${total} · ${self}`}${calls}`,
      detail: place(r.uri, r.line, folderUris),
      uri: r.uri,
      line: r.line,
    };
  });
}
