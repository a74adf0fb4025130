/**
 * Line heat: the server's `gmonlens/lineHeat` result, graded for the gutter and worded for hovers.
 * Pure: no `vscode` import.
 */

/** One line's figures (line 0-based; percent of the profile's total time). */
export interface HeatLine {
  line: number;
  seconds: number;
  percent: number;
  routine: string;
  routines: { name: string; seconds: number }[];
  /** the line's samples and one standard error in seconds (servers before 0.2 leave them out) */
  samples?: number;
  errSeconds?: number;
}

export interface FileHeat {
  uri: string;
  totalSeconds: number;
  lines: HeatLine[];
}

/** Share of the total time (percent) from which a line gets each level (index + 1) of the gutter bar. */
export const LEVELS = [0, 1, 3, 10] as const;
export type Level = 1 | 2 | 3 | 4;

const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const str = (v: unknown): v is string => typeof v === "string";

/** Validates the request's result; undefined when it is not line heat (null: no profile). */
export function parseLineHeat(result: unknown): FileHeat | undefined {
  if (typeof result !== "object" || result === null) {
    return undefined;
  }
  const r = result as Record<string, unknown>;
  if (!str(r.uri) || !Array.isArray(r.lines)) {
    return undefined;
  }
  const lines: HeatLine[] = [];
  for (const item of r.lines) {
    if (typeof item !== "object" || item === null) {
      continue;
    }
    const l = item as Record<string, unknown>;
    if (!num(l.line) || l.line < 0 || !num(l.seconds) || !num(l.percent)) {
      continue;
    }
    const routines = Array.isArray(l.routines)
      ? l.routines
          .filter((p): p is { name: string; seconds: number } => typeof p === "object" && p !== null && str(p.name) && num(p.seconds))
          .map((p) => ({ name: p.name, seconds: p.seconds }))
      : [];
    const sure = num(l.samples) && num(l.errSeconds) ? { samples: l.samples, errSeconds: l.errSeconds } : {};
    lines.push({ line: Math.floor(l.line), seconds: l.seconds, percent: l.percent, routine: str(l.routine) ? l.routine : "", routines, ...sure });
  }
  return { uri: r.uri, totalSeconds: num(r.totalSeconds) ? r.totalSeconds : 0, lines };
}

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
  let text = `**Line heat**: ${l.seconds.toFixed(2)} s, ${l.percent.toFixed(1)}% of the total time, in \`${l.routine.replace(/`/g, "'")}\``;
  if (l.routines.length > 1) {
    text += "\n\n" + l.routines.map((r) => `- ${escape(r.name)}: ${r.seconds.toFixed(2)} s`).join("\n");
  }
  if (l.samples !== undefined && l.errSeconds !== undefined) {
    text += `\n\n${l.seconds.toFixed(2)} ± ${l.errSeconds.toFixed(2)} s from ${l.samples.toFixed(0)} samples (± one standard error of the sampling)`;
    if (l.samples > 0 && l.samples < FEW_SAMPLES) {
      text += "; ⚠ few samples: mostly noise";
    }
    text += ".";
  }
  return text + "\n\n*Line samples from the histogram (gprof -l), not call-graph figures.*";
}
