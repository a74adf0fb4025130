/**
 * The `gmonlens/status` notification and what the status bar shows for it. Pure: no `vscode` import.
 */

export type StatusState = "loading" | "loaded" | "problem" | "idle";

/** The server's `gmonlens/status` params (seconds are gprof's total time of the profile). */
export interface ServerStatus {
  state: StatusState;
  message?: string;
  totalSeconds?: number;
  routines?: number;
  /** The workspace folder's URI this status belongs to. */
  folder?: string;
  /** The comparison with the folder's baseline, when it has one. */
  baseline?: BaselineStatus;
  /** What makes the whole profile less trustworthy, each with its fix (empty when healthy). */
  health?: HealthItem[];
}

/** One item of `health` in `gmonlens/status`. */
export interface HealthItem {
  code: string;
  message: string;
  fix: string;
}

function parseHealth(v: unknown): HealthItem[] {
  if (!Array.isArray(v)) {
    return [];
  }
  const out: HealthItem[] = [];
  for (const h of v.slice(0, 20)) {
    if (typeof h === "object" && h !== null) {
      const r = h as Record<string, unknown>;
      if (typeof r.code === "string" && typeof r.message === "string" && typeof r.fix === "string") {
        out.push({ code: r.code, message: r.message, fix: r.fix });
      }
    }
  }
  return out;
}

/** The health items as tooltip lines ("" when healthy). */
export function healthLines(health: HealthItem[] | undefined): string {
  return (health ?? []).map((h) => `\n⚠ ${h.message}. Fix: ${h.fix}.`).join("");
}

/** `baseline` of `gmonlens/status`: gprof's total time against the baseline's. */
export interface BaselineStatus {
  label: string;
  totalBefore: number;
  totalAfter: number;
  deltaSeconds: number;
  /** undefined when the baseline's total is 0 */
  percent?: number;
  verdict: "up" | "down" | "noise";
  regressions: number;
  improvements: number;
}

export interface StatusView {
  text: string;
  tooltip: string;
  kind: "normal" | "warning" | "error";
  /** true when a baseline is shown: a click lists the changes instead of opening the log */
  changes?: boolean;
}

const MARKS = { up: "▲", down: "▼", noise: "≈" } as const;

function parseBaseline(v: unknown): BaselineStatus | undefined {
  if (typeof v !== "object" || v === null) {
    return undefined;
  }
  const b = v as Record<string, unknown>;
  const num = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : undefined);
  const verdict = b.verdict === "up" || b.verdict === "down" || b.verdict === "noise" ? b.verdict : undefined;
  const before = num(b.totalBefore);
  const after = num(b.totalAfter);
  if (verdict === undefined || before === undefined || after === undefined) {
    return undefined;
  }
  return {
    label: typeof b.label === "string" ? b.label : "baseline",
    totalBefore: before,
    totalAfter: after,
    deltaSeconds: num(b.deltaSeconds) ?? after - before,
    percent: num(b.percent),
    verdict,
    regressions: num(b.regressions) ?? 0,
    improvements: num(b.improvements) ?? 0,
  };
}

/** "▲ +0.33 s (+79%)", "≈ +0.01 s": the total change, marked as the lenses mark it. */
export function baselineText(b: BaselineStatus): string {
  const sign = b.deltaSeconds >= 0 ? "+" : "-";
  const pct = b.percent === undefined || b.verdict === "noise" ? "" : ` (${b.percent >= 0 ? "+" : ""}${b.percent.toFixed(0)}%)`;
  return `${MARKS[b.verdict]} ${sign}${Math.abs(b.deltaSeconds).toFixed(2)} s${pct}`;
}

const STATES: readonly StatusState[] = ["loading", "loaded", "problem", "idle"];

/** Validates a notification's params; undefined when they are not a status. */
export function parseStatus(params: unknown): ServerStatus | undefined {
  if (typeof params !== "object" || params === null) {
    return undefined;
  }
  const p = params as Record<string, unknown>;
  if (typeof p.state !== "string" || !STATES.includes(p.state as StatusState)) {
    return undefined;
  }
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  const baseline = parseBaseline(p.baseline);
  const health = parseHealth(p.health);
  return {
    state: p.state as StatusState,
    message: str(p.message),
    totalSeconds: num(p.totalSeconds),
    routines: num(p.routines),
    folder: str(p.folder),
    ...(baseline === undefined ? {} : { baseline }),
    ...(health.length === 0 ? {} : { health }),
  };
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

/** "1.23 s" with gprof's two decimals. */
export function seconds(s: number): string {
  return `${s.toFixed(2)} s`;
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
      if (b !== undefined) {
        const counts = `${b.regressions} slower, ${b.improvements} faster beyond noise`;
        return {
          text: `$(flame) gprof: ${summary} · ${baselineText(b)}${mark}`,
          tooltip:
            `gmonlens: profile loaded${where}: ${summary}${message}${health}\n` +
            `Against the baseline (${b.label}): ${seconds(b.totalBefore)} -> ${seconds(b.totalAfter)}, ` +
            `${baselineText(b)}; ${counts}.\nClick for the changes.`,
          kind: "normal",
          changes: true,
        };
      }
      return {
        text: `$(flame) gprof: ${summary}${mark}`,
        tooltip: `gmonlens: profile loaded${where}: ${summary}${message}${health}\nClick for the log.`,
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
