/**
 * The annotated disassembly: the server's `gmonlens/disassembly` result (read by protocol.ts), graded
 * for the heat gutter and worded for inlay hints; which listing lines show a source line and the other way
 * round (cursor sync). Pure: no `vscode` import.
 */

import { level, type Level } from "./lineheat";
import type { Listing, ListingCall, ListingInstruction, ListingSource } from "./protocol";
import { seconds } from "./units";

export const DISASM_SCHEME = "gmonlens-disasm";

/** Instructions grouped by gutter level (levels 1..4 at indexes 0..3), by share of the routine. */
export function instructionsByLevel(listing: Listing): ListingInstruction[][] {
  const out: ListingInstruction[][] = [[], [], [], []];
  for (const i of listing.instructions) {
    const lv: Level | 0 = level(i.percent);
    if (lv > 0) {
      out[lv - 1].push(i);
    }
  }
  return out;
}

/** Whether an instruction gets an inlay hint: it has time (without a sampling rate: samples, which
 * its percent of the routine's self time counts). */
export function hinted(i: ListingInstruction): boolean {
  return i.seconds === null ? i.percent > 0 : i.seconds > 0;
}

/** The inlay hint after an instruction with samples ("n/a · 10.0%" without a sampling rate). */
export function hintLabel(i: ListingInstruction): string {
  return `${seconds(i.seconds)} · ${i.percent.toFixed(1)}%`;
}

/** The tooltip of a call's link to its callee: gprof's count and the time it propagates (an estimate). */
export function callTooltip(c: ListingCall): string {
  return `${c.callee}: ${c.count} calls, ${c.seconds === null ? seconds(null) : `~${seconds(c.seconds)}`} (gprof's estimate)`;
}

/** The listing lines of the instructions (and source headers) that come from `path`:`line` (1-based). */
export function listingLinesOf(listing: Listing, path: string, line: number): number[] {
  const out = listing.instructions.filter((i) => i.path === path && i.sourceLine === line).map((i) => i.line);
  out.push(...listing.sources.filter((s) => s.path === path && s.sourceLine === line).map((s) => s.line));
  return [...new Set(out)].sort((a, b) => a - b);
}

/** The source (path, 1-based line) of a listing line: its instruction's, else the last shown above it. */
export function sourceOfLine(listing: Listing, line: number): { path: string; line: number } | undefined {
  const insn = listing.instructions.find((i) => i.line === line);
  if (insn?.path) {
    return { path: insn.path, line: insn.sourceLine };
  }
  let best: ListingSource | undefined;
  for (const s of listing.sources) {
    if (s.line <= line && (!best || s.line > best.line)) {
      best = s;
    }
  }
  return best?.path ? { path: best.path, line: best.sourceLine } : undefined;
}

/** Where a call's annotation (`# callee: ...`) sits in its instruction's text line: [start, end). */
export function callSpan(lineText: string, callee: string): [number, number] | undefined {
  const start = lineText.indexOf(`# ${callee}:`);
  return start < 0 ? undefined : [start + 2, start + 2 + callee.length];
}
