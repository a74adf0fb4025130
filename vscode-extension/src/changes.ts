/**
 * The `gmonlens.changes` answer (routines that changed against the baseline) and its quick pick
 * items. Pure: no `vscode` import. Server answer: [{name, kind, status, change, selfBefore, selfAfter,
 * selfDelta, selfPercent, totalBefore, totalAfter, totalDelta, callsBefore, callsAfter, uri, line}].
 */

import { place } from "./hottest";

export type ChangeKind = "regression" | "improvement" | "new" | "gone";

export interface RoutineChange {
  name: string;
  kind: ChangeKind;
  change: string;
  selfBefore?: number;
  selfAfter?: number;
  totalBefore?: number;
  totalAfter?: number;
  callsBefore?: number;
  callsAfter?: number;
  uri?: string;
  line?: number;
}

export interface ChangeItem {
  label: string;
  description: string;
  detail: string;
  uri?: string;
  line?: number;
  /** a separator row heading a group */
  separator?: boolean;
}

const KINDS: readonly ChangeKind[] = ["regression", "improvement", "new", "gone"];
const HEADINGS: Record<ChangeKind, string> = {
  regression: "Slower (beyond noise)",
  improvement: "Faster (beyond noise)",
  new: "New since the baseline",
  gone: "Gone since the baseline",
};

/** Validates the server's answer; malformed entries are dropped, the server's order is kept. */
export function parseChanges(result: unknown): RoutineChange[] {
  if (!Array.isArray(result)) {
    return [];
  }
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const out: RoutineChange[] = [];
  for (const r of result) {
    if (typeof r !== "object" || r === null) {
      continue;
    }
    const e = r as Record<string, unknown>;
    if (typeof e.name !== "string" || !KINDS.includes(e.kind as ChangeKind)) {
      continue;
    }
    out.push({
      name: e.name,
      kind: e.kind as ChangeKind,
      change: typeof e.change === "string" ? e.change : "",
      selfBefore: num(e.selfBefore),
      selfAfter: num(e.selfAfter),
      totalBefore: num(e.totalBefore),
      totalAfter: num(e.totalAfter),
      callsBefore: num(e.callsBefore),
      callsAfter: num(e.callsAfter),
      uri: typeof e.uri === "string" && e.uri !== "" ? e.uri : undefined,
      line: num(e.line) !== undefined && (e.line as number) >= 0 ? (e.line as number) : undefined,
    });
  }
  return out;
}

const secs = (v: number | undefined) => (v === undefined ? "—" : v.toFixed(2));
const count = (v: number | undefined) => (v === undefined ? "—" : String(v));

/** Quick pick items grouped by kind (separator rows between groups), in the server's order. */
export function changeItems(changes: RoutineChange[], folderUris: readonly string[]): ChangeItem[] {
  const items: ChangeItem[] = [];
  let last: ChangeKind | undefined;
  for (const c of changes) {
    if (c.kind !== last) {
      items.push({ label: HEADINGS[c.kind], description: "", detail: "", separator: true });
      last = c.kind;
    }
    items.push({
      label: c.name,
      description:
        `${c.change} · self ${secs(c.selfBefore)} → ${secs(c.selfAfter)} s · total ${secs(c.totalBefore)} → ` +
        `${secs(c.totalAfter)} s · calls ${count(c.callsBefore)} → ${count(c.callsAfter)}`,
      detail: c.kind === "gone" ? "not in the current binary" : place(c.uri, c.line, folderUris),
      uri: c.uri,
      line: c.line,
    });
  }
  return items;
}
