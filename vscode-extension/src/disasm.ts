/**
 * The annotated disassembly: the server's `gmonlens/disassembly` result, validated, graded for the
 * heat gutter and worded for inlay hints; which listing lines show a source line and the other way
 * round (cursor sync). Pure: no `vscode` import.
 */

import { level, type Level } from "./lineheat";

export const DISASM_SCHEME = "gmonlens-disasm";

/** A call through one call instruction (seconds: gprof's propagated time, an estimate). */
export interface ListingCall {
  callee: string;
  count: number;
  seconds: number;
  path: string | null;
  sourceLine: number | null;
}

/** One instruction: its 0-based text line, figures (percent of the routine) and source. */
export interface ListingInstruction {
  line: number;
  address: number;
  seconds: number;
  percent: number;
  path: string | null;
  sourceLine: number;
  calls: ListingCall[];
}

/** A text line showing a source line (path: the file found in the workspace). */
export interface ListingSource {
  line: number;
  path: string | null;
  sourceLine: number;
}

export interface Listing {
  uri: string;
  displayName: string;
  selfSeconds: number;
  text: string;
  instructions: ListingInstruction[];
  sources: ListingSource[];
}

const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const str = (v: unknown): v is string => typeof v === "string";
const rec = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

function parseCall(c: unknown): ListingCall | undefined {
  if (!rec(c) || !str(c.callee) || !num(c.count) || !num(c.seconds)) {
    return undefined;
  }
  return {
    callee: c.callee,
    count: c.count,
    seconds: c.seconds,
    path: str(c.path) ? c.path : null,
    sourceLine: num(c.sourceLine) ? c.sourceLine : null,
  };
}

/** Validates the request's result; undefined when it is not a listing (null, or an error). */
export function parseListing(result: unknown): Listing | undefined {
  if (!rec(result) || !str(result.uri) || !str(result.text) || !Array.isArray(result.instructions)) {
    return undefined;
  }
  const instructions: ListingInstruction[] = [];
  for (const i of result.instructions) {
    if (!rec(i) || !num(i.line) || i.line < 0 || !num(i.address) || !num(i.seconds) || !num(i.percent)) {
      continue;
    }
    instructions.push({
      line: Math.floor(i.line),
      address: i.address,
      seconds: i.seconds,
      percent: i.percent,
      path: str(i.path) ? i.path : null,
      sourceLine: num(i.sourceLine) ? i.sourceLine : 0,
      calls: Array.isArray(i.calls) ? i.calls.map(parseCall).filter((c): c is ListingCall => c !== undefined) : [],
    });
  }
  const sources: ListingSource[] = [];
  for (const s of Array.isArray(result.sources) ? result.sources : []) {
    if (rec(s) && num(s.line) && num(s.sourceLine)) {
      sources.push({ line: Math.floor(s.line), path: str(s.path) ? s.path : null, sourceLine: s.sourceLine });
    }
  }
  return {
    uri: result.uri,
    displayName: str(result.displayName) ? result.displayName : "",
    selfSeconds: num(result.selfSeconds) ? result.selfSeconds : 0,
    text: result.text,
    instructions,
    sources,
  };
}

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

/** The inlay hint after an instruction with samples. */
export function hintLabel(i: ListingInstruction): string {
  return `${i.seconds.toFixed(2)} s · ${i.percent.toFixed(1)}%`;
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
