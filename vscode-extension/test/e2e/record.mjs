// "gmonlens: Record a Profile" in a real VS Code: the fixture built with gcc -pg -g but never run
// (no profile: no lens), its .vscode/launch.json naming the program; the command offers that
// program, runs `gmonlens record` in a terminal, and the lenses then show gprof's figures of the
// profile it recorded; the diagnosis is a notification with its fix and, where recording again
// fixes it, a button; the command line is remembered for the next time.

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { expectedLens, parseGprof } from "./gprof.mjs";
import { lensesWithLines, openWindow, quickOpen, sleep } from "./ui.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const WANT = ["spin", "square", "mix", "churn"];

/** The fixture's program built in `dir` (not run), with a launch configuration for it. */
export function buildUnrun(dir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.cpSync(path.join(HERE, "fixture", "src"), path.join(dir, "src"), { recursive: true });
  execFileSync("gcc", ["-pg", "-g", "-O0", "-o", "prog", "src/main.c", "src/work.c"], { cwd: dir });
  fs.mkdirSync(path.join(dir, ".vscode"));
  const launch = { version: "0.2.0", configurations: [
    { name: "Run prog", type: "cppdbg", request: "launch", program: "${workspaceFolder}/prog", args: [], cwd: "${workspaceFolder}" },
  ] };
  fs.writeFileSync(path.join(dir, ".vscode", "launch.json"), JSON.stringify(launch, null, 2));
}

async function notifications(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll(".notification-list-item")].map((el) => ({
      message: (el.querySelector(".notification-list-item-message")?.textContent ?? "").replace(/\u00a0/g, " "),
      buttons: [...el.querySelectorAll(".monaco-button")].map((b) => b.textContent.trim()),
    })),
  );
}

/** The quick pick's rows: label, description and detail of each. */
async function pickRows(page) {
  await page.locator(".quick-input-list .monaco-list-row").first().waitFor({ timeout: 15000 });
  await sleep(500);
  return (await page.locator(".quick-input-list .monaco-list-row").allTextContents()).map((t) => t.replace(/\u00a0/g, " "));
}

export async function recordChecks({ browser, port, work, results, check, runCommand }) {
  const folder = path.join(work, "record", "proj");
  buildUnrun(folder);
  const page = await openWindow(browser, port, `folder=${encodeURIComponent(folder)}`);
  try {
    await sleep(2000);
    await quickOpen(page, path.join(folder, "src", "work.c"), { hasText: "spin" });
    await sleep(3000);
    check("record: before recording the folder has no profile, no lens", (await lensesWithLines(page)).length === 0);

    // The command offers launch.json's program; choosing it records in a terminal.
    await runCommand(page, "gmonlens: Record a Profile");
    const rows = await pickRows(page);
    await page.screenshot({ path: path.join(results, "record-1-pick.png") });
    const offered = rows.findIndex((r) => r.includes(`${folder}/prog`) && r.includes("launch.json: Run prog"));
    check("record: the command offers launch.json's program", offered >= 0, JSON.stringify(rows));
    for (let i = 0; i < offered; i++) await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");

    const terminal = page.locator(".terminal-tab, .tabs-container .tab, .single-terminal-tab", { hasText: "gmonlens record: prog" }).first();
    const terminalShown = await terminal.waitFor({ timeout: 30000 }).then(() => true, () => false);
    check("record: gmonlens record runs in a terminal the person sees", terminalShown);

    // The recording is loaded: the lenses show gprof's figures of the profile recorded. (What
    // the notifications say is gathered meanwhile: a toast without a button hides after a while.)
    const recDir = path.join(folder, "gmonlens-record");
    const said = new Map();
    const gather = async () => (await notifications(page)).forEach((n) => said.set(n.message, n));
    let lenses = [];
    let problem = "no recording";
    let panelClosed = false;
    const deadline = Date.now() + 120000;
    while (Date.now() < deadline) {
      await sleep(1000);
      await gather();
      if (!panelClosed && fs.existsSync(path.join(recDir, "record.json")) && (await lensesWithLines(page)).length > 0) {
        await page.screenshot({ path: path.join(results, "record-2-terminal.png") });
        await runCommand(page, "View: Close Panel"); // the editor whole again: every lens in view
        panelClosed = true;
      }
      const profiles = fs.existsSync(recDir) ? fs.readdirSync(recDir).filter((f) => /^gmon\.out\.\d+$/.test(f)) : [];
      if (profiles.length === 0) continue;
      const gprof = parseGprof(execFileSync("gprof", ["-b", "prog", ...profiles.map((p) => `gmonlens-record/${p}`)], { cwd: folder, encoding: "utf8" }));
      lenses = await lensesWithLines(page);
      problem = WANT.map((name) => {
        const seen = lenses.find((l) => new RegExp(`\\b${name}\\(`).test(l.line));
        return seen ? expectedLens(seen.lens, gprof.routines.get(name), gprof.totalSeconds) : `no lens above ${name}`;
      })
        .filter(Boolean)
        .join("; ");
      if (!problem) break;
    }
    await page.screenshot({ path: path.join(results, "record-3-lenses.png") });
    check("record: the lenses show gprof's figures of the recorded profile", !problem, problem || JSON.stringify(lenses));

    // What came of it: a notification per finding with its fix (the fixture's short run has few
    // samples: recording again with --precision fixes that, a button), or what was recorded.
    await gather();
    const record = [...said.values()].filter((n) => /gmonlens( record)?[: \[]/.test(n.message));
    const few = record.find((n) => n.message.includes("[few_samples]"));
    check("record: what came of it is told",
      record.some((n) => /recorded 1 profile of prog/.test(n.message)) &&
        (!few || (few.message.includes("Fix:") && few.buttons.some((b) => b.startsWith("Record again with --precision")))),
      JSON.stringify(record));

    // The command line is remembered for the folder: offered first next time.
    await runCommand(page, "gmonlens: Record a Profile");
    const again = await pickRows(page);
    check("record: the command line is remembered (offered first)", /prog/.test(again[0] ?? "") && /recorded before/.test(again[0] ?? ""), JSON.stringify(again));
    await page.keyboard.press("Escape");
  } finally {
    await page.close();
  }
}
