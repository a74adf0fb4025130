/**
 * How the server process is started. Pure: no `vscode` import; process probing is injected.
 *
 * Order: `gmonlens.serverCommand` (an installed gmonlens), else `gmonlens.interpreter`, else the first
 * of `python3`, `python` on PATH that is >= 3.10, running the bundled server through python/launch.py.
 * vscode-languageclient appends `--stdio` to the arguments built here.
 */

import * as path from "node:path";
import type { ClientSettings } from "./settings";

export const MIN_PYTHON: readonly [number, number] = [3, 10];

export interface ExtensionLayout {
  /** The extension's root folder (where package.json is). */
  root: string;
}

export interface LaunchPlan {
  command: string;
  args: string[];
  /** How the command was chosen, for the output channel. */
  origin: "serverCommand" | "interpreter" | "PATH";
}

export interface LaunchProblem {
  /** One line, shown in the status bar tooltip and the output channel. */
  problem: string;
}

/** The script that puts bundled/libs first on sys.path and runs `gmonlens_lsp serve`. */
export function launcherScript(layout: ExtensionLayout): string {
  return path.join(layout.root, "python", "launch.py");
}

export function bundledLibs(layout: ExtensionLayout): string {
  return path.join(layout.root, "bundled", "libs");
}

/** argv for an installed gmonlens command: the person's argv plus `serve` unless already given. */
export function serverCommandPlan(argv: string[]): LaunchPlan {
  const [command, ...rest] = argv;
  const args = rest.includes("serve") ? rest : [...rest, "serve"];
  return { command, args, origin: "serverCommand" };
}

/** argv for the bundled server run by `python`. `-I` keeps the person's PYTHONPATH and user site out. */
export function bundledPlan(python: string, layout: ExtensionLayout, origin: LaunchPlan["origin"]): LaunchPlan {
  return { command: python, args: ["-I", launcherScript(layout), "serve"], origin };
}

/** "3.11" -> [3, 11]; undefined when the text is not a version. */
export function parsePythonVersion(text: string): [number, number] | undefined {
  const m = /^\s*(?:Python\s+)?(\d+)\.(\d+)/.exec(text);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

export function versionOk(v: [number, number]): boolean {
  return v[0] > MIN_PYTHON[0] || (v[0] === MIN_PYTHON[0] && v[1] >= MIN_PYTHON[1]);
}

/** Interpreters tried when no setting names one, in order. */
export function pythonCandidates(platform: NodeJS.Platform): string[] {
  return platform === "win32" ? ["python", "py", "python3"] : ["python3", "python"];
}

/**
 * Runs `python -c ...` and returns its stdout, or throws (not found, not runnable).
 * Injected so tests need no interpreter.
 */
export type Probe = (python: string) => Promise<string>;

export const VERSION_SNIPPET = "import sys; print('%d.%d' % sys.version_info[:2])";

/** The launch plan for these settings, or the reason there is none (one line). */
export async function planLaunch(
  settings: ClientSettings,
  layout: ExtensionLayout,
  platform: NodeJS.Platform,
  probe: Probe,
): Promise<LaunchPlan | LaunchProblem> {
  if (settings.serverCommand.length > 0) {
    return serverCommandPlan(settings.serverCommand);
  }
  const want = `${MIN_PYTHON[0]}.${MIN_PYTHON[1]}`;
  if (settings.interpreter !== "") {
    const found = await probeVersion(settings.interpreter, probe);
    if (found === undefined) {
      return { problem: `gmonlens.interpreter "${settings.interpreter}" does not run` };
    }
    if (!versionOk(found)) {
      return {
        problem: `gmonlens.interpreter "${settings.interpreter}" is Python ${found.join(".")}; gmonlens needs >= ${want}`,
      };
    }
    return bundledPlan(settings.interpreter, layout, "interpreter");
  }
  const tried: string[] = [];
  for (const candidate of pythonCandidates(platform)) {
    const found = await probeVersion(candidate, probe);
    if (found === undefined) {
      tried.push(`${candidate}: not found`);
    } else if (!versionOk(found)) {
      tried.push(`${candidate}: ${found.join(".")}`);
    } else {
      return bundledPlan(candidate, layout, "PATH");
    }
  }
  return {
    problem: `no Python >= ${want} on PATH (${tried.join(", ")}); set gmonlens.interpreter or gmonlens.serverCommand`,
  };
}

async function probeVersion(python: string, probe: Probe): Promise<[number, number] | undefined> {
  try {
    return parsePythonVersion(await probe(python));
  } catch {
    return undefined;
  }
}

/** One line for the output channel: the command as a person would type it. */
export function describePlan(plan: LaunchPlan): string {
  const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);
  return `${[plan.command, ...plan.args, "--stdio"].map(quote).join(" ")}   (from ${plan.origin})`;
}

/** Where a platform's package carries capstone (absent from the platform-neutral package). */
export function bundledCapstone(layout: ExtensionLayout): string {
  return path.join(layout.root, "bundled", "native", "capstone");
}

/**
 * Whether a server message says capstone is missing: the listing's error ("no disassembly without
 * the capstone module ...") and -c's warning ("-c is unavailable: the capstone disassembler (Python
 * package 'capstone') is not installed").
 */
export function saysCapstoneMissing(message: string): boolean {
  return /capstone/.test(message) && /without the capstone|not installed/.test(message);
}

/**
 * Where the server's capstone would come from: this platform's package of the extension
 * (bundled/native), the platform-neutral package (none), or the gmonlens of gmonlens.serverCommand
 * (its own Python's).
 */
export type CapstoneSource = "platform" | "neutral" | "serverCommand";

/**
 * The server's message, with what to do when it says capstone is missing: this package is the
 * platform-neutral one (it has none), or a platform's package whose capstone did not load in the
 * server's interpreter (python/launch.py says why in the output), or the server is not the
 * extension's (gmonlens.serverCommand). Other messages are returned unchanged. Used for every such
 * message (the listing's, -c's), so they advise alike.
 */
export function capstoneAdvice(message: string, source: CapstoneSource): string {
  if (!saysCapstoneMissing(message)) {
    return message;
  }
  const own = "or install capstone in the Python that runs the server (python3 -m pip install capstone; gmonlens.interpreter)";
  switch (source) {
    case "platform":
      return `${message}. This extension's capstone did not load in that Python (see the gmonlens output): set gmonlens.interpreter to a Python of this machine's architecture, ${own}.`;
    case "neutral":
      return `${message}. This is the platform-neutral gmonlens package, which has no capstone: install the gmonlens package for your platform (gmonlens-<platform>-<version>.vsix: linux-x64, linux-arm64, alpine-x64, alpine-arm64, darwin-x64, darwin-arm64, win32-x64), ${own}.`;
    case "serverCommand":
      return `${message}. The server is the gmonlens of gmonlens.serverCommand: install capstone in the Python it runs on (python3 -m pip install capstone in its environment; make install in a gmonlens checkout sets up .venv with it), or clear gmonlens.serverCommand to use this extension's server.`;
  }
}

/**
 * The popup for a warning the server logged (window/logMessage, which otherwise reaches the output
 * only), or undefined: -c unavailable for want of capstone (gmonlens.staticCallGraph turned on to
 * no effect) is shown, with capstoneAdvice's advice.
 */
export function loggedWarningPopup(message: string, source: CapstoneSource): string | undefined {
  return message.startsWith("-c is unavailable") && saysCapstoneMissing(message)
    ? `gmonlens: ${capstoneAdvice(message, source)}`
    : undefined;
}
