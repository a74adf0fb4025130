/**
 * What the status bar shows for the `gmonlens/status` notifications (read by protocol.ts). Pure: no
 * `vscode` import.
 */

import type { BaselineStatus, HealthItem, ServerStatus } from "./protocol";
import { NO_RATE, seconds } from "./units";

/** The health items as tooltip lines ("" when healthy). */
export function healthLines(health: HealthItem[] | undefined): string {
  return (health ?? []).map((h) => `\n⚠ ${h.message}. Fix: ${h.fix}.`).join("");
}

export interface StatusView {
  text: string;
  tooltip: string;
  kind: "normal" | "warning" | "error";
  /** true when a baseline is shown: a click lists the changes instead of opening the log */
  changes?: boolean;
}

const MARKS = { up: "▲", down: "▼", noise: "≈" } as const;

/** "▲ +0.33 s (+79%)", "≈ +0.01 s": the total change, marked as the lenses mark it. */
export function baselineText(b: BaselineStatus): string {
  const sign = b.deltaSeconds >= 0 ? "+" : "-";
  const pct = b.percent === undefined || b.verdict === "noise" ? "" : ` (${b.percent >= 0 ? "+" : ""}${b.percent.toFixed(0)}%)`;
  return `${MARKS[b.verdict]} ${sign}${seconds(Math.abs(b.deltaSeconds))}${pct}`;
}

/** The problem in a word or two, from the server's one-line message ("PATH: what is wrong", the CLI's words). */
export function problemWord(message: string | undefined): string {
  // Drop the leading "PATH: " so that words in file names cannot match.
  const m = (message ?? "").replace(/^[^:\s]*[/\\.][^:]*:\s+/, "").toLowerCase();
  const rules: [RegExp, string][] = [
    [/internal error/, "internal error"],
    [/newer than/, "stale"],
    [/no executable|no binary/, "no binary"],
    [/does not fit|incompatible with|different scales|overlapping histogram/, "mismatch"],
    [/no gmon\.out|no file matches|no profile/, "no profile"],
    [/no such file|not found|cannot open|permission denied/, "not found"],
    [/elf|dwarf|no symbols|not an executable|section .* extends/, "bad binary"],
    [/magic|empty file|bad tag|corrupt|unsupported gmon|bad header|too large|no bins|not a gmon|truncated|format/, "broken profile"],
    [/python|interpreter|bundled/, "no Python"],
  ];
  for (const [re, word] of rules) {
    if (re.test(m)) {
      return word;
    }
  }
  return "problem";
}

/** The status bar item's text and tooltip. `status` undefined = the server has said nothing yet. */
export function statusView(status: ServerStatus | undefined, folderName?: string): StatusView {
  const where = folderName ? ` (${folderName})` : "";
  if (status === undefined) {
    return { text: "$(sync~spin) gprof", tooltip: `gmonlens: starting${where}`, kind: "normal" };
  }
  const message = status.message ? `\n${status.message}` : "";
  switch (status.state) {
    case "loading":
      return { text: "$(sync~spin) gprof: loading", tooltip: `gmonlens: loading the profile${where}${message}`, kind: "normal" };
    case "loaded": {
      const parts: string[] = [];
      if (status.totalSeconds !== undefined) {
        parts.push(seconds(status.totalSeconds));
      }
      if (status.routines !== undefined) {
        parts.push(`${status.routines} routine${status.routines === 1 ? "" : "s"}`);
      }
      const summary = parts.length > 0 ? parts.join(" · ") : "loaded";
      const b = status.baseline;
      const health = healthLines(status.health);
      const mark = health ? " $(warning)" : "";
      // why the total reads n/a; the server's health items say whether more is wrong (no warning mark here)
      const rate = status.totalSeconds === null ? `\nSeconds ${seconds(null)}: ${NO_RATE}.` : "";
      if (b !== undefined) {
        const counts = `${b.regressions} slower, ${b.improvements} faster beyond noise`;
        return {
          text: `$(flame) gprof: ${summary} · ${baselineText(b)}${mark}`,
          tooltip:
            `gmonlens: profile loaded${where}: ${summary}${message}${rate}${health}\n` +
            `Against the baseline (${b.label}): ${seconds(b.totalBefore)} -> ${seconds(b.totalAfter)}, ` +
            `${baselineText(b)}; ${counts}.\nClick for the changes.`,
          kind: "normal",
          changes: true,
        };
      }
      return {
        text: `$(flame) gprof: ${summary}${mark}`,
        tooltip: `gmonlens: profile loaded${where}: ${summary}${message}${rate}${health}\nClick for the log.`,
        kind: "normal",
      };
    }
    case "problem":
      return {
        text: `$(warning) gprof: ${problemWord(status.message)}`,
        tooltip: `gmonlens${where}: ${status.message ?? "problem"}\nClick for the log.`,
        kind: "warning",
      };
    case "idle":
      return { text: "$(flame) gprof: no profile", tooltip: `gmonlens: no profile${where}${message}`, kind: "normal" };
  }
}

/**
 * Which folder's status to show: the active editor's folder when it has one, else the only or first
 * folder that reported. `statuses` maps folder URI (or "" when the server named none) to its status.
 */
export function pickStatus(
  statuses: ReadonlyMap<string, ServerStatus>,
  activeFolder: string | undefined,
): ServerStatus | undefined {
  if (activeFolder !== undefined) {
    const own = statuses.get(activeFolder) ?? statuses.get(stripSlash(activeFolder));
    if (own) {
      return own;
    }
  }
  if (statuses.has("")) {
    return statuses.get("");
  }
  return statuses.values().next().value;
}

export function stripSlash(uri: string): string {
  return uri.endsWith("/") ? uri.slice(0, -1) : uri;
}
