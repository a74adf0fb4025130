/**
 * The call graph panel's flame graph (icicle) and butterfly views: the server's `gmonlens/flameGraph`
 * answer (read by protocol.ts) laid out (each frame's horizontal extent as fractions of the zoomed frame),
 * searched, and written as HTML for the webview; the butterfly of one routine from a depth-1
 * `gmonlens/callGraph` answer. Pure: no `vscode` import, unit-tested and benchmarked in node.
 */

import type { CallGraph, FlameFrame, FlameGraph } from "./protocol";
import { NO_RATE, seconds } from "./units";

/** A frame placed: `x0`/`x1` fractions of the panel's width, `row` from the top (0: the outermost shown). */
export interface Placed {
  index: number;
  x0: number;
  x1: number;
  row: number;
}

/**
 * Where each frame goes when `focus` (a frame index, -1: none) is zoomed to the full width: the focus's
 * ancestors span the width above it, its descendants share it in proportion to their seconds, every
 * other frame is left out; so are frames narrower than `minFraction` of the width. Children sit left
 * to right in the server's order (widest first, `other` last). A frame without seconds (the profile
 * has no sampling rate: the wire carries nothing else to size it by) has no width: none is placed
 * but the focus's chain, and `flameSummary` says why.
 */
export function layout(g: FlameGraph, focus = -1, minFraction = 0): Placed[] {
  const frames = g.frames;
  const out: Placed[] = [];
  const x0 = new Float64Array(frames.length);
  const next = new Float64Array(frames.length); // where a frame's next child starts
  const shown = new Uint8Array(frames.length);
  let base: number;
  let scale: number;
  let rowShift = 0;
  const secs = (f: FlameFrame): number => f.seconds ?? 0;
  if (focus >= 0 && focus < frames.length) {
    const chain: number[] = [];
    for (let i = focus; i >= 0; i = frames[i].parent) {
      chain.push(i);
    }
    chain.reverse();
    for (const [row, i] of chain.entries()) {
      out.push({ index: i, x0: 0, x1: 1, row });
    }
    shown[focus] = 1;
    x0[focus] = 0;
    next[focus] = 0;
    base = secs(frames[focus]);
    scale = base > 0 ? 1 / base : 0;
    rowShift = chain.length - 1 - frames[focus].depth;
  } else {
    base = g.frames.filter((f) => f.parent < 0).reduce((a, f) => a + secs(f), 0);
    scale = base > 0 ? 1 / base : 0;
  }
  let rootNext = 0;
  const start = focus >= 0 ? focus + 1 : 0;
  for (let i = start; i < frames.length; i++) {
    const f = frames[i];
    let left: number;
    if (f.parent < 0) {
      if (focus >= 0) {
        continue;
      }
      left = rootNext;
      rootNext += secs(f) * scale;
    } else if (shown[f.parent]) {
      left = next[f.parent];
      next[f.parent] += secs(f) * scale;
    } else {
      continue;
    }
    const width = secs(f) * scale;
    if (width < minFraction || width <= 0) {
      continue;
    }
    shown[i] = 1;
    x0[i] = left;
    next[i] = left;
    out.push({ index: i, x0: left, x1: left + width, row: f.depth + rowShift });
  }
  return out;
}

/** Indices of the frames whose name contains `query` (case-insensitive); none for an empty query. */
export function search(g: FlameGraph, query: string): Set<number> {
  const q = query.trim().toLowerCase();
  const hits = new Set<number>();
  if (!q) {
    return hits;
  }
  g.frames.forEach((f, i) => {
    if (f.name.toLowerCase().includes(q)) {
      hits.add(i);
    }
  });
  return hits;
}

/** The seconds of a routine's (or cycle's) frames added up: its gprof total; null when a frame has
 * none (no sampling rate). */
export function routineSeconds(g: FlameGraph, frame: FlameFrame): number | null {
  let s = 0;
  for (const f of g.frames) {
    if ((frame.routine !== null && f.routine === frame.routine) || (frame.cycle !== null && f.cycle === frame.cycle)) {
      if (f.seconds === null) {
        return null;
      }
      s += f.seconds;
    }
  }
  return s;
}

const pct = (part: number, whole: number): string => (whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : "0%");

/** A frame's time on its path: "1.50 s on this path (60.0% of 2.50 s), self 0.50 s". */
function pathTime(g: FlameGraph, f: FlameFrame): string {
  const share = f.seconds !== null && g.totalSeconds !== null ? ` (${pct(f.seconds, g.totalSeconds)} of ${seconds(g.totalSeconds)})` : "";
  const why = f.seconds === null ? ` (${NO_RATE})` : "";
  return `${seconds(f.seconds)} on this path${share}, self ${seconds(f.selfSeconds)}${why}`;
}

/** A frame's tooltip: its time on this path, its share, self time, and whether the width is measured. */
export function frameTooltip(g: FlameGraph, i: number): string {
  const f = g.frames[i];
  const lines = [`${f.name}`, pathTime(g, f)];
  if (f.routine === null && f.cycle === null) {
    lines.push(`Routines under ${g.minPercent}% of the total each, folded into one frame.`);
  } else {
    lines.push(`All its frames: ${seconds(routineSeconds(g, f))}, its gprof total.`);
  }
  if (f.cycle !== null) {
    lines.push(`Cycle ${f.cycle} as a whole: gprof gives calls between its members no time.`);
  }
  const member = cycleMemberOnPath(g, i);
  lines.push(
    member !== undefined
      ? `Estimate: ${member.i === i ? "a" : "below a"} member of cycle ${member.cycle}, whose frame is split among its members as gprof's cycle entry gives their times (gprof gives calls between members no time).`
      : f.estimated
        ? "Estimate: a routine on this path has several callers, and gprof splits its time among them by call counts."
        : "Exact: every routine on this path below the root has a single caller.",
  );
  lines.push(f.uri !== null ? "Click to zoom, Ctrl/Cmd+click to open the source, Alt+click for callers and callees." : "Click to zoom.");
  return lines.join("\n");
}

/** The nearest frame on frame i's path (itself first) that is a cycle member's (`cycleMember`). */
function cycleMemberOnPath(g: FlameGraph, i: number): { i: number; cycle: number } | undefined {
  for (let k = i; k >= 0; k = g.frames[k].parent) {
    const cycle = g.frames[k].cycleMember;
    if (cycle !== undefined) {
      return { i: k, cycle };
    }
  }
  return undefined;
}

const esc = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Colour of a frame: warm for routines, by a hash of the name (stable across reloads), grey for `other`. */
export function frameColour(f: FlameFrame): string {
  if (f.routine === null && f.cycle === null) {
    return "hsl(0, 0%, 55%)";
  }
  let h = 0;
  for (let i = 0; i < f.name.length; i++) {
    h = (h * 31 + f.name.charCodeAt(i)) >>> 0;
  }
  return f.cycle !== null ? `hsl(${270 + (h % 30)}, 55%, 62%)` : `hsl(${(h % 50) + 5}, ${70 + (h % 20)}%, ${55 + (h % 12)}%)`;
}

export const ROW_PX = 18;

/** What the webview draws for a placed frame (an absolutely positioned div; positions are set
 * through the DOM because the panel's Content-Security-Policy refuses inline `style` attributes). */
export interface FrameView {
  index: number;
  className: string; // "frame" plus `estimated`, `other`, `cycle`, `match` (search hits)
  source: string; // "file.c:12" (1-based line), "" without a place in the workspace
  title: string;
  text: string;
  left: string; // percent of the width, "12.5000%"
  width: string;
  top: string; // pixels, rows of ROW_PX
  colour: string;
}

export function frameViews(g: FlameGraph, placed: Placed[], hits: Set<number>): FrameView[] {
  return placed.map((p) => {
    const f = g.frames[p.index];
    const cls = ["frame"];
    if (f.estimated) cls.push("estimated");
    if (f.routine === null && f.cycle === null) cls.push("other");
    if (f.cycle !== null) cls.push("cycle");
    if (hits.has(p.index)) cls.push("match");
    return {
      index: p.index,
      className: cls.join(" "),
      source: f.uri !== null ? `${f.uri.split("/").pop() ?? ""}:${(f.line ?? 0) + 1}` : "",
      title: frameTooltip(g, p.index),
      text: f.name,
      left: `${(100 * p.x0).toFixed(4)}%`,
      width: `${(100 * (p.x1 - p.x0)).toFixed(4)}%`,
      top: `${p.row * ROW_PX}px`,
      colour: frameColour(f),
    };
  });
}

/** Whether the flame graph has no widths: its seconds are null (the profile has no sampling rate). */
export function timeless(g: FlameGraph): boolean {
  return g.totalSeconds === null || g.frames.some((f) => f.seconds === null);
}

/** The flame graph's summary line (without a sampling rate: why nothing is drawn). */
export function flameSummary(g: FlameGraph, shown: number): string {
  const roots = g.frames.filter((f) => f.parent < 0).length;
  const estimated = g.frames.filter((f) => f.estimated).length;
  const why = timeless(g) ? ` (${NO_RATE}: the frames have no width to draw)` : "";
  return (
    `flame graph · ${g.frames.length} frames (${shown} drawn), ${roots} root${roots === 1 ? "" : "s"} · total ${seconds(g.totalSeconds)}${why}` +
    ` · ${estimated} estimated (hatched) · under ${g.minPercent}% folded into "other"` +
    (g.truncated ? " · truncated" : "")
  );
}

export interface ButterflyRow {
  id: number;
  name: string;
  calls: string; // "400/1000": these calls of all the callee's calls from other routines
  count: number; // 400
  of: number; // 1000
  seconds: number | null; // gprof's propagated time along the arc; null without a sampling rate
  percent: number; // the same time, percent of the call graph's total (from samples)
  estimated: boolean | null; // null: not known yet (the server's certainty pending): not marked
  uri: string | null;
  line: number | null;
}

export interface Butterfly {
  id: number;
  name: string;
  totalSeconds: number | null;
  selfSeconds: number | null;
  percent: number; // the routine's total, percent of the call graph's total
  calls: number;
  callers: ButterflyRow[];
  callees: ButterflyRow[];
}

/** Heaviest first: by seconds; without a sampling rate by percent (the same samples), then calls. */
function heavierFirst(a: ButterflyRow, b: ButterflyRow): number {
  if (a.seconds !== null && b.seconds !== null) {
    return b.seconds - a.seconds;
  }
  return b.percent - a.percent || b.count - a.count;
}

/** One routine's callers and callees with gprof's exact call counts, from a depth-1 call graph around it. */
export function butterfly(g: CallGraph): Butterfly | undefined {
  const centre = g.nodes.find((n) => n.id === g.center);
  if (!centre) {
    return undefined;
  }
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const row = (other: number, e: CallGraph["edges"][number], total: number): ButterflyRow => {
    const n = byId.get(other);
    return {
      id: other,
      name: n?.displayName ?? String(other),
      calls: `${e.calls}/${total}`,
      count: e.calls,
      of: total,
      seconds: e.seconds,
      percent: e.percent,
      estimated: typeof e.estimated === "boolean" ? e.estimated : null,
      uri: n?.uri ?? null,
      line: n?.line ?? null,
    };
  };
  const callers = g.edges
    .filter((e) => e.callee === centre.id && e.caller !== centre.id)
    .map((e) => row(e.caller, e, centre.calls))
    .sort(heavierFirst);
  const callees = g.edges
    .filter((e) => e.caller === centre.id && e.callee !== centre.id)
    .map((e) => row(e.callee, e, byId.get(e.callee)?.calls ?? 0))
    .sort(heavierFirst);
  return {
    id: centre.id,
    name: centre.displayName,
    totalSeconds: centre.totalSeconds,
    selfSeconds: centre.selfSeconds,
    percent: centre.percent,
    calls: centre.calls,
    callers,
    callees,
  };
}

/** What the butterfly's bars measure: seconds (of the routine's total); without a sampling rate the
 * percent of the call graph's total (the same samples, so the same widths), or, without samples,
 * each arc's share of the calls its label shows. */
export function barBasis(b: Butterfly): "seconds" | "percent" | "calls" {
  const rows = [...b.callers, ...b.callees];
  if (b.totalSeconds !== null && rows.every((r) => r.seconds !== null)) {
    return "seconds";
  }
  return b.percent > 0 ? "percent" : "calls";
}

/** The butterfly as HTML: callers above, the routine, callees below; bars as wide as their seconds
 * (`barBasis`: without a sampling rate, their percent or their share of the calls, said in the heads). */
export function butterflyHtml(b: Butterfly): string {
  // bar widths go in data-width (percent): the webview sets them (no inline styles under its CSP)
  const basis = barBasis(b);
  const percentOf = (part: number, whole: number): number => (whole > 0 ? (100 * part) / whole : 0);
  const share = (r: ButterflyRow): number =>
    basis === "seconds" ? percentOf(r.seconds ?? 0, b.totalSeconds ?? 0) : basis === "percent" ? percentOf(r.percent, b.percent) : percentOf(r.count, r.of);
  const width = (r: ButterflyRow): string => Math.min(100, share(r)).toFixed(2);
  const note = basis === "seconds" ? "" : ` (bars: ${basis === "percent" ? "share of its time in samples" : "share of the calls"}; ${NO_RATE})`;
  const row = (r: ButterflyRow, kind: string): string =>
    `<div class="bf-row ${kind}${r.estimated ? " estimated" : ""}" data-node="r${r.id}" title="${esc(
      `${r.name}: ${r.calls} calls, ${seconds(r.seconds)} along the arc (${
        r.estimated === null ? "estimate or exact: marks pending" : r.estimated ? "estimate: gprof's split by call counts" : "exact"
      })`,
    )}"><span class="bf-bar" data-width="${width(r)}"></span><span class="bf-label">${esc(r.name)} · ${esc(r.calls)} calls · ${seconds(r.seconds)}${r.estimated ? " (est.)" : ""}</span></div>`;
  return [
    `<div class="bf-head">Callers of ${esc(b.name)}${esc(note)}</div>`,
    ...(b.callers.length ? b.callers.map((r) => row(r, "caller")) : ['<div class="bf-none">&lt;spontaneous&gt;</div>']),
    `<div class="bf-row centre" data-node="r${b.id}"><span class="bf-bar" data-width="100"></span><span class="bf-label">${esc(b.name)} · ${seconds(b.totalSeconds)} total, self ${seconds(b.selfSeconds)}${b.calls ? ` · ${b.calls} calls` : ""}</span></div>`,
    `<div class="bf-head">Callees</div>`,
    ...(b.callees.length ? b.callees.map((r) => row(r, "callee")) : ['<div class="bf-none">none</div>']),
  ].join("");
}
