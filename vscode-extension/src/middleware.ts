/**
 * What the client does to the server's messages on their way (vscode-languageclient's options and
 * middleware): the settings it sends (initializationOptions, workspace/configuration's answers,
 * with VS Code's workspace trust), the lenses and hovers it adds its own links to, the inlay hints
 * that follow the line heat toggle, and the server's `gmonlens.showCallers` lens command pointed at
 * VS Code's call hierarchy.
 */

import * as vscode from "vscode";
import type { LanguageClientOptions } from "vscode-languageclient/node";
import { SECTION, lineHeatShown, readRaw, variableContext } from "./config";
import { DISASM_SCHEME } from "./disasm";
import { COMMANDS } from "./ids";
import { SERVER_COMMANDS } from "./protocol";
import { serverSettings } from "./settings";

const DOCUMENT_LANGUAGES = ["c", "cpp", "cuda-cpp", "objective-c", "objective-cpp"];

export function clientOptions(output: vscode.LogOutputChannel, log: (line: string) => void): LanguageClientOptions {
  const first = vscode.workspace.workspaceFolders?.[0];
  const init = serverSettings(readRaw(first), variableContext(first));
  init.problems.forEach((p) => log(p));
  return {
    documentSelector: DOCUMENT_LANGUAGES.map((language) => ({ scheme: "file", language })),
    outputChannel: output,
    traceOutputChannel: output,
    // trustedWorkspace: VS Code's workspace trust, never a setting a workspace can write
    initializationOptions: { ...init.settings, trustedWorkspace: vscode.workspace.isTrusted },
    middleware: {
      workspace: {
        // Any gmonlens.* change restarts the server (debounced), which then pulls the new values.
        didChangeConfiguration: async () => undefined,
        configuration: async (params, token, next) => {
          const defaults = await next(params, token);
          return params.items.map((item, i) => {
            if (item.section !== SECTION) {
              return Array.isArray(defaults) ? defaults[i] : null;
            }
            const folder = item.scopeUri ? vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(item.scopeUri)) : undefined;
            const settings = serverSettings(readRaw(folder ?? first), variableContext(folder ?? first)).settings;
            return { ...settings, trustedWorkspace: vscode.workspace.isTrusted };
          });
        },
      },
      provideCodeLenses: async (document, token, next) => {
        const lenses = await next(document, token);
        return lenses ? withDisassemblyLenses(lenses.map(rewriteLens)) : lenses;
      },
      provideHover: async (document, position, token, next) => {
        const hover = await next(document, position, token);
        return hover ? withDisassemblyLink(withCallGraphLink(hover, document, position)) : hover;
      },
      resolveCodeLens: async (lens, token, next) => {
        const resolved = await next(lens, token);
        return resolved ? rewriteLens(resolved) : resolved;
      },
      // Line heat's hints follow the client's toggle (gmonlens.showLineHeat); the server sends them.
      provideInlayHints: (document, range, token, next) => (lineHeatShown() ? next(document, range, token) : []),
      executeCommand: async (command, args, next) => {
        if (command === SERVER_COMMANDS.showCallers) {
          return vscode.commands.executeCommand(COMMANDS.peekCallers, ...args);
        }
        return next(command, args);
      },
    },
  };
}

/** Points the server's `gmonlens.showCallers` lens command at the client's call hierarchy command. */
export function rewriteLens(lens: vscode.CodeLens): vscode.CodeLens {
  if (lens.command?.command === SERVER_COMMANDS.showCallers) {
    lens.command = { ...lens.command, command: COMMANDS.peekCallers, tooltip: lens.command.tooltip ?? "Show the callers" };
  }
  return lens;
}

/**
 * A "Show call graph" command link under the server's hover when it holds a routine's call-graph entry
 * (its table header `| index | % time |`; not for a hover on inlined copies only), trusted for that
 * one command only.
 */
export function withCallGraphLink(hover: vscode.Hover, document: vscode.TextDocument, position: vscode.Position): vscode.Hover {
  const text = hover.contents.map((c) => (typeof c === "string" ? c : c.value)).join("\n");
  if (!text.includes("| index | % time |")) {
    return hover;
  }
  const command = COMMANDS.showCallGraph;
  const args = encodeURIComponent(JSON.stringify([document.uri.toString(), { line: position.line, character: position.character }]));
  const link = new vscode.MarkdownString(`[$(type-hierarchy) Show call graph](command:${command}?${args} "Open the call graph around this routine")`, true);
  link.isTrusted = { enabledCommands: [command] };
  return new vscode.Hover([...hover.contents, link], hover.range);
}

/** The hover's link to a listing (`gmonlens-disasm:`) as a trusted command link VS Code opens. */
export function withDisassemblyLink(hover: vscode.Hover): vscode.Hover {
  const contents = hover.contents.map((c) => {
    const value = typeof c === "string" ? c : c.value;
    if (!value.includes(`](${DISASM_SCHEME}:`)) {
      return c;
    }
    const text = value.replace(new RegExp(`\\]\\((${DISASM_SCHEME}:[^)\\s]+)\\)`, "g"), (_m, uri: string) => {
      const args = encodeURIComponent(JSON.stringify([uri]));
      return `](command:${COMMANDS.openListing}?${args} "Open the annotated disassembly")`;
    });
    const md = new vscode.MarkdownString(text, true);
    md.isTrusted = { enabledCommands: [COMMANDS.openListing] };
    return md;
  });
  return new vscode.Hover(contents, hover.range);
}

/** A "Disassembly" lens beside each server lens (same routine: the lens's arguments). */
export function withDisassemblyLenses(lenses: vscode.CodeLens[]): vscode.CodeLens[] {
  const out: vscode.CodeLens[] = [];
  for (const lens of lenses) {
    out.push(lens);
    const args = lens.command?.arguments;
    if (lens.command && Array.isArray(args) && args.length >= 2) {
      out.push(
        new vscode.CodeLens(lens.range, {
          title: "$(chip) disassembly",
          command: COMMANDS.openDisassembly,
          arguments: args,
          tooltip: "The routine's instructions with gprof's samples and calls",
        }),
      );
    }
  }
  return out;
}
