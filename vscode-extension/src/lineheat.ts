/**
 * Line heat: the server's `gmonlens/lineHeat` result (read by protocol.ts), graded for the gutter and
 * worded for hovers. Pure: no `vscode` import.
 */

import type { FileHeat, HeatLine } from "./protocol";
import { NO_RATE, seconds, secondsFigure } from "./units";

/** Share of the total time (percent) from which a line gets each level (index + 1) of the gutter bar. */
export const LEVELS = [0, 1, 3, 10] as const;
export type Level = 1 | 2 | 3 | 4;

/** The gutter level of a line: by its share of the total time; 0 (not painted) without time. */
export function level(percent: number): Level | 0 {
  if (!(percent > 0)) {
    return 0;
  }
  let out = 1;
  LEVELS.forEach((from, i) => {
    if (percent >= from) {
      out = i + 1;
    }
  });
  return out as Level;
}

/** Lines grouped by gutter level (levels 1..4 at indexes 0..3). */
export function byLevel(heat: FileHeat): HeatLine[][] {
  const out: HeatLine[][] = [[], [], [], []];
  for (const l of heat.lines) {
    const lv = level(l.percent);
    if (lv > 0) {
      out[lv - 1].push(l);
    }
  }
  return out;
}

/** Under this many samples a figure is mostly noise (the server's FEW_ROUTINE_SAMPLES). */
export const FEW_SAMPLES = 10;

/** Markdown for hovering a heated line: its figures and the routine(s) it belongs to. */
export function hoverText(l: HeatLine): string {
  const escape = (s: string) => s.replace(/([\\`*_{}[\]()#+\-.!|<>])/g, "\\$1");
  let text = `**Line heat**: ${seconds(l.seconds)}, ${l.percent.toFixed(1)}% of the total time, in \`${l.routine.replace(/`/g, "'")}\``;
  if (l.routines.length > 1) {
    text += "\n\n" + l.routines.map((r) => `- ${escape(r.name)}: ${seconds(r.seconds)}`).join("\n");
  }
  if (l.samples !== undefined && l.errSeconds !== undefined) {
    const samples = `${l.samples.toFixed(0)} samples`;
    text +=
      l.seconds === null || l.errSeconds === null
        ? `\n\n${samples}; seconds ${seconds(null)}: ${NO_RATE}`
        : `\n\n${secondsFigure(l.seconds)} ± ${seconds(l.errSeconds)} from ${samples} (± one standard error of the sampling)`;
    if (l.samples > 0 && l.samples < FEW_SAMPLES) {
      text += "; ⚠ few samples: mostly noise";
    }
    text += ".";
  }
  return text + "\n\n*Line samples from the histogram (gprof -l), not call-graph figures.*";
}
