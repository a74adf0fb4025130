/**
 * The `gmonlens.hottest` answer and its quick pick items. Pure: no `vscode` import.
 * Server answer: [{name, selfSeconds, totalSeconds, percent, calls, uri, line}], line 0-based (LSP).
 */

export type HottestBy = "self" | "total";

export interface HotRoutine {
  name: string;
  selfSeconds: number;
  totalSeconds: number;
  percent: number;
  calls: string;
  uri?: string;
  line?: number;
}

export interface HotItem {
  label: string;
  description: string;
  detail: string;
  uri?: string;
  line?: number;
}

export const HOTTEST_LIMIT = 100;

/** Validates the server's answer; malformed entries are dropped. */
export function parseHottest(result: unknown): HotRoutine[] {
  if (!Array.isArray(result)) {
    return [];
  }
  const out: HotRoutine[] = [];
  for (const r of result) {
    if (typeof r !== "object" || r === null || typeof (r as { name?: unknown }).name !== "string") {
      continue;
    }
    const e = r as Record<string, unknown>;
    const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
    out.push({
      name: e.name as string,
      selfSeconds: num(e.selfSeconds),
      totalSeconds: num(e.totalSeconds),
      percent: num(e.percent),
      calls: typeof e.calls === "number" ? String(e.calls) : typeof e.calls === "string" ? e.calls : "",
      uri: typeof e.uri === "string" && e.uri !== "" ? e.uri : undefined,
      line: typeof e.line === "number" && e.line >= 0 ? e.line : undefined,
    });
  }
  return out;
}

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
    const self = `self ${r.selfSeconds.toFixed(2)} s`;
    const total = `total ${r.totalSeconds.toFixed(2)} s`;
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
