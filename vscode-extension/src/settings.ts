/**
 * The "gmonlens" settings: typed, validated, with variables resolved. Pure: no `vscode` import.
 *
 * Server settings (sent in initializationOptions and answered to workspace/configuration, camelCase):
 * binary, profiles, staticCallGraph, sourceMap, lensTitle, baseline, lineHeatMinPercent, lineHeatLabel,
 * clones, budgets.
 * Only the keys a person actually set are sent,
 * so a folder's gmonlens.yaml still applies to the keys left unset.
 * Client-only settings: interpreter, serverCommand, trace.server; showLineHeat (the view: heatview.ts).
 */

import * as path from "node:path";

export interface ServerSettings {
  binary?: string;
  profiles?: string[];
  staticCallGraph?: boolean;
  sourceMap?: Record<string, string>;
  lensTitle?: string;
  /** The profile(s) to compare with and, optionally, the binary that wrote them. */
  baseline?: { profiles: string[]; binary?: string };
  /** Where pinned baselines are kept (default: the server's data folder). */
  pinFolder?: string;
  lineHeatMinPercent?: number;
  lineHeatLabel?: string;
  /** "gprof" (clones folded as gprof folds them) or "apart" (each under its own name). */
  clones?: "gprof" | "apart";
  /** The budget file (`gmonlens check`'s) the hover and lenses show (default: found by name). */
  budgets?: string;
}

export interface ClientSettings {
  /** Python interpreter running the bundled server; "" = python3 on PATH. */
  interpreter: string;
  /** An installed gmonlens command (argv prefix); [] = the bundled server. */
  serverCommand: string[];
}

export const SERVER_KEYS = [
  "binary",
  "profiles",
  "staticCallGraph",
  "sourceMap",
  "lensTitle",
  "baseline",
  "pinFolder",
  "lineHeatMinPercent",
  "lineHeatLabel",
  "clones",
  "budgets",
] as const;
export type ServerKey = (typeof SERVER_KEYS)[number];

/** A setting's value as VS Code reports it, and whether any scope set it explicitly. */
export interface SettingValue {
  value: unknown;
  isSet: boolean;
}

export type RawSettings = Partial<Record<string, SettingValue>>;

/** Where variables resolve: the workspace folder's path (undefined without one) and the home directory. */
export interface VariableContext {
  folder?: string;
  home: string;
}

const isString = (v: unknown): v is string => typeof v === "string";
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const isStringRecord = (v: unknown): v is Record<string, string> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every(isString);

/** Replaces ${workspaceFolder}, ${userHome}, ${env:NAME} and a leading ~ in one setting string. */
export function resolveVariables(text: string, ctx: VariableContext, env: NodeJS.ProcessEnv = {}): string {
  let out = text.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (whole, key, name) => {
    if (key === "workspaceFolder") {
      return ctx.folder ?? whole;
    }
    if (key === "userHome") {
      return ctx.home;
    }
    return env[name as string] ?? "";
  });
  if (out === "~" || out.startsWith("~/")) {
    out = ctx.home + out.slice(1);
  }
  return out;
}

/** A path made absolute against the workspace folder (unchanged without a folder or when absolute). */
export function absolute(p: string, folder: string | undefined): string {
  return folder === undefined || path.isAbsolute(p) ? p : path.join(folder, p);
}

/**
 * The server settings a person set, validated and with variables resolved.
 * A value of the wrong type is dropped and described in `problems` (one line each).
 */
export function serverSettings(
  raw: RawSettings,
  ctx: VariableContext,
  env: NodeJS.ProcessEnv = {},
): { settings: ServerSettings; problems: string[] } {
  const settings: ServerSettings = {};
  const problems: string[] = [];
  const bad = (key: string, want: string) =>
    problems.push(`gmonlens.${key}: expected ${want}, got ${JSON.stringify(raw[key]?.value)}; ignored`);
  const resolve = (s: string) => resolveVariables(s, ctx, env);
  const resolvePath = (s: string) => absolute(resolve(s), ctx.folder);
  for (const key of SERVER_KEYS) {
    const entry = raw[key];
    if (!entry?.isSet) {
      continue;
    }
    const v = entry.value;
    switch (key) {
      case "binary":
      case "pinFolder":
      case "budgets":
        if (isString(v)) {
          if (v.trim() !== "") {
            settings[key] = resolvePath(v.trim());
          }
        } else {
          bad(key, "a string");
        }
        break;
      case "profiles":
        if (isStringArray(v)) {
          const list = v.map((s) => s.trim()).filter((s) => s !== "");
          if (list.length > 0) {
            settings.profiles = list.map(resolvePath);
          }
        } else {
          bad(key, "an array of strings");
        }
        break;
      case "staticCallGraph":
        if (typeof v === "boolean") {
          settings.staticCallGraph = v;
        } else {
          bad(key, "true or false");
        }
        break;
      case "sourceMap":
        if (isStringRecord(v)) {
          if (Object.keys(v).length > 0) {
            settings.sourceMap = Object.fromEntries(Object.entries(v).map(([k, p]) => [resolve(k), resolvePath(p)]));
          }
        } else {
          bad(key, "an object of path prefix -> path");
        }
        break;
      case "lensTitle":
      case "lineHeatLabel":
        if (isString(v)) {
          if (v.trim() !== "") {
            settings[key] = v;
          }
        } else {
          bad(key, "a string");
        }
        break;
      case "baseline": {
        const obj = isString(v) || isStringArray(v) ? { profiles: v } : v;
        const o = (typeof obj === "object" && obj !== null && !Array.isArray(obj) ? obj : undefined) as
          | Record<string, unknown>
          | undefined;
        const profiles = o === undefined ? undefined : isString(o.profiles) ? [o.profiles] : o.profiles;
        const extra = o === undefined ? [] : Object.keys(o).filter((k) => k !== "profiles" && k !== "binary");
        if (o === undefined || extra.length > 0 || (profiles !== undefined && !isStringArray(profiles)) ||
            (o.binary !== undefined && !isString(o.binary))) {
          bad(key, "profile paths or an object {profiles, binary}");
          break;
        }
        const list = (profiles ?? []).map((s) => s.trim()).filter((s) => s !== "");
        if (list.length > 0) {
          settings.baseline = { profiles: list.map(resolvePath) };
          if (isString(o.binary) && o.binary.trim() !== "") {
            settings.baseline.binary = resolvePath(o.binary.trim());
          }
        }
        break;
      }
      case "clones":
        if (v === "gprof" || v === "apart") {
          settings.clones = v;
        } else {
          bad(key, '"gprof" or "apart"');
        }
        break;
      case "lineHeatMinPercent":
        if (typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= 100) {
          settings.lineHeatMinPercent = v;
        } else {
          bad(key, "a number from 0 to 100");
        }
        break;
    }
  }
  return { settings, problems };
}

/** The client-only settings, validated and with variables resolved; wrong types fall back to defaults. */
export function clientSettings(
  raw: RawSettings,
  ctx: VariableContext,
  env: NodeJS.ProcessEnv = {},
): { settings: ClientSettings; problems: string[] } {
  const problems: string[] = [];
  const settings: ClientSettings = { interpreter: "", serverCommand: [] };
  // A bare name ("python3") is looked up on PATH; a path is taken from the workspace folder.
  const executable = (s: string) => {
    const r = resolveVariables(s.trim(), ctx, env);
    return /[\\/]/.test(r) ? absolute(r, ctx.folder) : r;
  };
  const interpreter = raw.interpreter?.value;
  if (interpreter !== undefined && interpreter !== null) {
    if (isString(interpreter)) {
      settings.interpreter = interpreter.trim() === "" ? "" : executable(interpreter);
    } else {
      problems.push(`gmonlens.interpreter: expected a string, got ${JSON.stringify(interpreter)}; ignored`);
    }
  }
  const command = raw.serverCommand?.value;
  if (command !== undefined && command !== null) {
    if (isStringArray(command)) {
      const argv = command.filter((s) => s.trim() !== "");
      settings.serverCommand = argv.map((s, i) => (i === 0 ? executable(s) : resolveVariables(s, ctx, env)));
    } else if (isString(command)) {
      // Tolerate a single string: one executable path, never split on spaces.
      if (command.trim() !== "") {
        settings.serverCommand = [executable(command)];
      }
    } else {
      problems.push(`gmonlens.serverCommand: expected an array of strings, got ${JSON.stringify(command)}; ignored`);
    }
  }
  return { settings, problems };
}
