/**
 * The `gmonlens/callGraph` answer (read by protocol.ts) turned into Graphviz DOT for the call graph
 * panel, in the style of `gmonlens export --format dot` (gprof2dot's): boxes on a blue -> red ramp by
 * total time, edges coloured and thickened by the time gprof propagates along them and labelled with
 * that time and the calls, cycle members in a dashed cluster, calls inside a cycle dashed.
 * Pure (no `vscode` import): unit-tested, and used by bench/graph_panel_bench.py through node.
 */

import type { CallGraph, GraphEdge, GraphNode } from "./protocol";
import { NO_RATE, seconds } from "./units";

const MAX_LABEL = 60;

/** Python's colorsys.hls_to_rgb. */
function hlsToRgb(h: number, l: number, s: number): [number, number, number] {
  if (s === 0) {
    return [l, l, l];
  }
  const m2 = l <= 0.5 ? l * (1 + s) : l + s - l * s;
  const m1 = 2 * l - m2;
  const v = (hue: number): number => {
    hue = ((hue % 1) + 1) % 1;
    if (hue < 1 / 6) return m1 + (m2 - m1) * hue * 6;
    if (hue < 0.5) return m2;
    if (hue < 2 / 3) return m1 + (m2 - m1) * (2 / 3 - hue) * 6;
    return m1;
  };
  return [v(h + 1 / 3), v(h), v(h - 1 / 3)];
}

/** #rrggbb for a weight in [0, 1]: dark blue (cold) to red (hot), as the dot export colours. */
export function ramp(weight: number): string {
  const w = Math.min(Math.max(Number.isFinite(weight) ? weight : 0, 0), 1);
  const [r, g, b] = hlsToRgb((2 / 3) * (1 - w), 0.25 + 0.25 * w, 0.8 + 0.2 * w);
  const hex = (x: number) => Math.round(x * 255).toString(16).padStart(2, "0");
  return `#${hex(r)}${hex(g)}${hex(b)}`;
}

/** Text for a DOT double-quoted string: backslashes and quotes escaped, line breaks made `\n`. */
export function dotString(text: string): string {
  return text
    .replace(/\\/g, "\\\\")
    .replace(/"/g, '\\"')
    .replace(/\r\n|\r|\n/g, "\\n")
    .replace(/[\u0000-\u001f\u007f]/g, " ");
}

/** A long (C++) name cut in the middle to keep boxes readable; the tooltip has it whole. */
export function shortName(name: string, max = MAX_LABEL): string {
  if (name.length <= max) {
    return name;
  }
  const head = Math.ceil((max - 1) * 0.6);
  return `${name.slice(0, head)}…${name.slice(name.length - (max - 1 - head))}`;
}

export function callsText(calls: number, recursive: number): string {
  if (calls && recursive) {
    return `${calls}+${recursive}×`;
  }
  return `${calls || recursive}×`;
}

/** The DOT node id of a routine (also the SVG element id Graphviz writes, so clicks can find it). */
export const nodeId = (id: number): string => `r${id}`;

export function nodeLabel(n: GraphNode): string {
  let label = `${shortName(n.displayName)}\n${n.percent.toFixed(2)}% · ${seconds(n.totalSeconds)}\n(self ${n.selfPercent.toFixed(2)}% · ${seconds(n.selfSeconds)})`;
  if (n.calls || n.recursiveCalls) {
    label += `\n${callsText(n.calls, n.recursiveCalls)}`;
  }
  return label;
}

/** An edge's label: the time along it (`≈` marks gprof's estimate, `exact` the callee's whole time when
 * the server said which) and the calls. */
export function edgeLabel(e: GraphEdge): string {
  if (e.inCycle) {
    return callsText(e.calls, 0);
  }
  const time = `${seconds(e.seconds)} (${e.percent.toFixed(2)}%)`;
  const marked = e.estimated === undefined ? time : e.estimated ? `≈ ${time}` : `${time} exact`;
  return `${marked}\n${callsText(e.calls, 0)}`;
}

/** The one-line description shown when hovering a node in the panel. */
export function nodeTooltip(n: GraphNode): string {
  const parts = [
    n.displayName,
    `total ${seconds(n.totalSeconds)} (${n.percent.toFixed(2)}%), self ${seconds(n.selfSeconds)} (${n.selfPercent.toFixed(2)}%)`,
    `${callsText(n.calls, n.recursiveCalls)} calls${n.cycle ? ` · cycle ${n.cycle}` : ""}`,
    n.uri ? "click: open its source" : "no source in this workspace: click to centre the graph on it",
  ];
  return parts.join("\n");
}

/** The graph as DOT, top to bottom (callers above callees), the centre routine outlined. */
export function toDot(g: CallGraph): string {
  const out = [
    "digraph gmonlens {\n",
    '  graph [fontname="Arial", fontsize=10, nodesep=0.2, ranksep=0.35, bgcolor="transparent"];\n',
    '  node [fontcolor=white, fontname="Arial", fontsize=10, shape=box, style="filled,rounded", margin="0.1,0.05"];\n',
    '  edge [fontname="Arial", fontsize=9];\n',
  ];
  const byCycle = new Map<number, string[]>();
  for (const n of g.nodes) {
    const color = ramp(n.percent / 100);
    let line = `  ${nodeId(n.id)} [id="${nodeId(n.id)}", label="${dotString(nodeLabel(n))}", fillcolor="${color}", color="${color}"`;
    if (n.id === g.center) {
      line += ', penwidth=3, color="#000000"';
    }
    line += "];\n";
    if (n.cycle) {
      const list = byCycle.get(n.cycle) ?? [];
      list.push(line);
      byCycle.set(n.cycle, list);
    } else {
      out.push(line);
    }
  }
  for (const k of [...byCycle.keys()].sort((a, b) => a - b)) {
    out.push(`  subgraph cluster_cycle${k} {\n    id="cycle${k}"; label="<cycle ${k}>"; style="dashed,rounded";\n`);
    out.push(...(byCycle.get(k) ?? []).map((l) => `  ${l}`));
    out.push("  }\n");
  }
  for (const e of g.edges) {
    const w = Math.min(Math.max(e.percent / 100, 0), 1);
    const color = ramp(w);
    let attrs = `label="${dotString(edgeLabel(e))}", color="${color}", fontcolor="${color}", penwidth=${(0.5 + 3.5 * w).toFixed(2)}, arrowsize=${(0.5 + 0.5 * Math.sqrt(w)).toFixed(2)}`;
    if (e.inCycle) {
      attrs += ", style=dashed";
    }
    out.push(`  ${nodeId(e.caller)} -> ${nodeId(e.callee)} [${attrs}];\n`);
  }
  out.push("}\n");
  return out.join("");
}

/** The summary line above the graph. */
export function summary(g: CallGraph): string {
  const center = g.nodes.find((n) => n.id === g.center);
  const what = center ? `around ${center.displayName}, depth ${g.depth ?? 0}` : "whole program";
  const pruned =
    g.prunedNodes || g.prunedEdges
      ? ` · ${g.prunedNodes} routines and ${g.prunedEdges} calls below ${g.nodeThreshold}% / ${g.edgeThreshold}% not shown`
      : "";
  const pending = g.certaintyPending ? " · estimate marks pending" : "";
  const rate = g.totalSeconds === null ? ` (${NO_RATE}; colours and widths by percent)` : "";
  return `${what} · ${g.nodes.length} routines, ${g.edges.length} calls · total ${seconds(g.totalSeconds)}${rate}${pruned}${pending}`;
}
