/**
 * What "gmonlens: Record a Profile" runs and says, decided without the editor: the command line a
 * person types (split as a shell would, nothing expanded), the programs `launch.json` offers, the
 * `gmonlens record` command the terminal runs (the server's interpreter and bundle: launch.ts), the
 * remembered command lines, and the notifications a recording's diagnosis makes (one per code,
 * with the fix; a button where recording again with other options is the fix).
 * Pure: no `vscode` import.
 */

import type { LaunchPlan } from "./launch";
import type { RecordSummary } from "./protocol";
import { seconds } from "./units";

/** What to record: the command (argv, no shell) and where it runs (absolute; undefined: the folder). */
export interface RecordTarget {
  argv: string[];
  cwd?: string;
  /** `gmonlens record` options (`--on-signal=exit`, `--arcs=N`, ...) */
  options?: string[];
}

/** A command line split into words as a POSIX shell splits them (quotes and backslashes), nothing
 * expanded; or what is wrong with it. */
export function splitCommandLine(line: string): { argv: string[] } | { problem: string } {
  const argv: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) argv.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote !== undefined) {
    return { problem: `the ${quote === "'" ? "single" : "double"} quote is not closed` };
  }
  if (inWord) argv.push(word);
  return argv.length > 0 ? { argv } : { problem: "no command" };
}

/** argv as a command line that `splitCommandLine` reads back (words quoted where needed). */
export function commandLine(argv: readonly string[]): string {
  return argv.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(" ");
}

// ---- launch.json -------------------------------------------------------------------------------

/** Debug types whose launch configurations name a native program (`program`/`args`; Native
 * Debug's `gdb`: `target`/`arguments`). */
export const NATIVE_DEBUG_TYPES = ["cppdbg", "cppvsdbg", "lldb", "lldb-dap", "lldb-vscode", "gdb", "codelldb"];

export interface Variables {
  /** the workspace folder's path */
  folder: string;
  home: string;
  env: Record<string, string | undefined>;
}

export interface LaunchTarget extends RecordTarget {
  /** the configuration's name */
  name: string;
}

/** `${workspaceFolder}`, `${workspaceRoot}`, `${workspaceFolderBasename}`, `${userHome}`,
 * `${env:NAME}`, `${pathSeparator}`/`${/}` resolved; undefined when another variable is left (an
 * input, a command: nothing is run to resolve it). */
export function resolveVariables(text: string, vars: Variables): string | undefined {
  const base = vars.folder.split("/").filter(Boolean).pop() ?? vars.folder;
  const out = text.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
    if (name === "workspaceFolder" || name === "workspaceRoot") return vars.folder;
    if (name === "workspaceFolderBasename") return base;
    if (name === "userHome") return vars.home;
    if (name === "pathSeparator" || name === "/") return "/";
    if (name.startsWith("env:")) return vars.env[name.slice(4)] ?? "";
    return whole;
  });
  return /\$\{[^}]*\}/.test(out) ? undefined : out;
}

function words(v: unknown): string[] | undefined {
  if (typeof v === "string") {
    const split = splitCommandLine(v);
    return "argv" in split ? split.argv : undefined;
  }
  return Array.isArray(v) && v.every((w) => typeof w === "string") ? v : undefined;
}

/** The programs of a folder's launch configurations (`launch.configurations`) that record can run:
 * native debug types, `request: "launch"`, every variable resolvable; in their order. */
export function launchTargets(configurations: unknown, vars: Variables): LaunchTarget[] {
  if (!Array.isArray(configurations)) {
    return [];
  }
  const out: LaunchTarget[] = [];
  for (const c of configurations.slice(0, 100)) {
    if (typeof c !== "object" || c === null) continue;
    const conf = c as Record<string, unknown>;
    if (!NATIVE_DEBUG_TYPES.includes(String(conf.type)) || (conf.request !== undefined && conf.request !== "launch")) continue;
    const program = conf.type === "gdb" ? conf.target : conf.program;
    const args = words(conf.type === "gdb" ? (conf.arguments ?? []) : (conf.args ?? [])) ?? undefined;
    if (typeof program !== "string" || program === "" || args === undefined) continue;
    const resolved = [program, ...args].map((w) => resolveVariables(w, vars));
    const cwd = typeof conf.cwd === "string" ? resolveVariables(conf.cwd, vars) : vars.folder;
    if (resolved.some((w) => w === undefined) || cwd === undefined) continue;
    const name = typeof conf.name === "string" ? conf.name : String(program);
    out.push({ name, argv: resolved as string[], cwd });
  }
  return out;
}

// ---- the remembered command lines (per folder) ------------------------------------------------

export const REMEMBERED = 8;

/** `target` first, then the others that differ from it (argv, cwd, options), at most REMEMBERED. */
export function remember(list: readonly RecordTarget[], target: RecordTarget): RecordTarget[] {
  const key = (t: RecordTarget) => JSON.stringify([t.argv, t.cwd ?? null, t.options ?? []]);
  return [target, ...list.filter((t) => key(t) !== key(target))].slice(0, REMEMBERED);
}

/** The remembered list as workspaceState held it (anything malformed dropped). */
export function readRemembered(raw: unknown): RecordTarget[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((t) => {
    if (typeof t !== "object" || t === null) return [];
    const r = t as Record<string, unknown>;
    const argv = Array.isArray(r.argv) && r.argv.length > 0 && r.argv.every((w) => typeof w === "string") ? r.argv : undefined;
    const options = Array.isArray(r.options) && r.options.every((w) => typeof w === "string") ? { options: r.options } : {};
    return argv ? [{ argv, ...(typeof r.cwd === "string" ? { cwd: r.cwd } : {}), ...options }] : [];
  }).slice(0, REMEMBERED);
}

// ---- the terminal --------------------------------------------------------------------------------

/** The recording's directory in a folder: where discovery finds it (`gmonlens-record/`). */
export function recordDir(folder: string): string {
  return `${folder.replace(/\/+$/, "")}/gmonlens-record`;
}

/** The language server's launch plan turned into `gmonlens record`'s: `serve` replaced by
 * `record --out DIR OPTIONS -- COMMAND...` (`python -m gmonlens_lsp` runs the server alone: the
 * command line is `gmonlens_cli`'s). */
export function recordArgv(plan: LaunchPlan, outDir: string, target: RecordTarget): string[] {
  const args = [...plan.args];
  const module = args.indexOf("-m");
  if (module >= 0 && args[module + 1] === "gmonlens_lsp") {
    args[module + 1] = "gmonlens_cli";
  }
  const at = args.lastIndexOf("serve");
  const record = ["record", "--out", outDir, ...(target.options ?? []), "--", ...target.argv];
  if (at >= 0) {
    args.splice(at, 1, ...record);
  } else {
    args.push(...record);
  }
  return [plan.command, ...args];
}

/**
 * The terminal's shell script (`/bin/sh -c SCRIPT gmonlens-record STATUS_FILE COMMAND...`): runs
 * the command, writes its exit status to STATUS_FILE (the extension waits for it), then keeps the
 * terminal open until Enter so its output can be read. ^C reaches the command (the trap is a
 * handler, not an ignore: the command gets the default action back), and the shell goes on.
 */
export const TERMINAL_SCRIPT =
  'status_file=$1; shift; trap : INT; "$@"; status=$?; printf "%s" "$status" > "$status_file"; ' +
  'printf "\\n[gmonlens record ended with exit status %s; press Enter to close this terminal]" "$status"; ' +
  'read -r _ || true; exit "$status"';

export function terminalArgs(statusFile: string, command: readonly string[]): { shellPath: string; shellArgs: string[] } {
  return { shellPath: "/bin/sh", shellArgs: ["-c", TERMINAL_SCRIPT, "gmonlens-record", statusFile, ...command] };
}

// ---- what the person is told -------------------------------------------------------------------

export interface RecordNotice {
  level: "error" | "warning" | "info";
  text: string;
  /** the options that fix it by recording again (the button "Record again with ...") */
  rerun?: string[];
}

const MAX_TEXT = 700;
const cut = (s: string) => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT - 1)}…` : s);

/** One notification per diagnosis code (its first finding), errors first, each with its fix; then
 * the outcome: what was recorded, or why nothing could be loaded. */
export function recordNotices(rec: RecordSummary): RecordNotice[] {
  const seen = new Set<string>();
  const order = { error: 0, warning: 1, note: 2 } as const;
  const findings = [...rec.diagnosis]
    .filter((d) => !seen.has(d.code) && seen.add(d.code))
    .sort((a, b) => order[a.severity] - order[b.severity]);
  const out: RecordNotice[] = findings.map((d) => ({
    level: d.severity === "note" ? "info" : d.severity,
    text: cut(`gmonlens record [${d.code}]: ${d.message}. Fix: ${d.fix}`),
    ...(d.rerun.length > 0 ? { rerun: d.rerun } : {}),
  }));
  if (rec.usable) {
    const main = [...rec.programs].sort((a, b) => b.samples - a.samples)[0];
    const name = main ? main.binary.split("/").pop() : "the program";
    const time = main === undefined ? "" : main.seconds === null ? `, seconds ${seconds(null)} (no sampling rate)` : `, ${seconds(main.seconds)}`;
    const hottest = main?.hottest ? `; hottest: ${main.hottest}` : "";
    out.push({ level: "info", text: `gmonlens: recorded ${rec.profiles} profile${rec.profiles === 1 ? "" : "s"} of ${name}${time}${hottest}` });
  } else if (findings.every((d) => d.severity !== "error")) {
    out.push({ level: "error", text: `gmonlens record: no usable profile (exit status ${rec.exitStatus}); see the terminal` });
  }
  return out;
}

/** `options` with `rerun`'s options put in (an option of the same name replaced: `--arcs=N`). */
export function withOptions(options: readonly string[], rerun: readonly string[]): string[] {
  const name = (o: string) => o.split("=", 1)[0];
  const replaced = new Set(rerun.map(name));
  return [...options.filter((o) => !replaced.has(name(o))), ...rerun];
}
