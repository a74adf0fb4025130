/**
 * The `gmonlens.changes` answer (routines that changed against the baseline, read by protocol.ts) as
 * quick pick items. Pure: no `vscode` import.
 */

import { place } from "./hottest";
import type { ChangeKind, RoutineChange } from "./protocol";
import { secondsFigure } from "./units";

export interface ChangeItem {
  label: string;
  description: string;
  detail: string;
  uri?: string;
  line?: number;
  /** a separator row heading a group */
  separator?: boolean;
}

const HEADINGS: Record<ChangeKind, string> = {
  regression: "Slower (beyond noise)",
  improvement: "Faster (beyond noise)",
  new: "New since the baseline",
  gone: "Gone since the baseline",
};

// undefined: the routine is missing on that side (new or gone)
const secs = (v: number | undefined) => (v === undefined ? "—" : secondsFigure(v));
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
