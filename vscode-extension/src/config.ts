/**
 * The `gmonlens` settings as VS Code holds them: what each key's value is and whether a person set
 * it (settings.ts validates them), where variables resolve, and the line heat toggle.
 */

import * as os from "node:os";
import * as vscode from "vscode";
import { type RawSettings, SERVER_KEYS, type VariableContext } from "./settings";

export const SECTION = "gmonlens";
/** The client-only setting that shows line heat (gutter, hints); toggling it needs no restart. */
export const SHOW_LINE_HEAT = "showLineHeat";
/** The settings whose change restarts the server (it reads them at start, or they start it). */
const RESTART_KEYS = [...SERVER_KEYS, "interpreter", "serverCommand", "trace.server"];

export function lineHeatShown(): boolean {
  return vscode.workspace.getConfiguration(SECTION).get<boolean>(SHOW_LINE_HEAT, true) !== false;
}

/** Whether a configuration change only toggled line heat (no restart: the view follows it). */
export function onlyLineHeatToggled(e: vscode.ConfigurationChangeEvent): boolean {
  return (
    e.affectsConfiguration(`${SECTION}.${SHOW_LINE_HEAT}`) &&
    !RESTART_KEYS.some((key) => e.affectsConfiguration(`${SECTION}.${key}`))
  );
}

/** The "gmonlens" settings of a folder (or the window), with whether each key was set explicitly. */
export function readRaw(scope: vscode.WorkspaceFolder | undefined): RawSettings {
  const cfg = vscode.workspace.getConfiguration(SECTION, scope);
  const raw: RawSettings = {};
  for (const key of [...SERVER_KEYS, "interpreter", "serverCommand"]) {
    const i = cfg.inspect(key);
    const isSet =
      i !== undefined &&
      [
        i.globalValue,
        i.workspaceValue,
        i.workspaceFolderValue,
        i.globalLanguageValue,
        i.workspaceLanguageValue,
        i.workspaceFolderLanguageValue,
      ].some((v) => v !== undefined);
    raw[key] = { value: cfg.get(key), isSet };
  }
  return raw;
}

export function variableContext(folder: vscode.WorkspaceFolder | undefined): VariableContext {
  return { folder: folder?.uri.scheme === "file" ? folder.uri.fsPath : undefined, home: os.homedir() };
}
