// The annotated disassembly in a real VS Code (part of run.mjs), on the real program line heat uses
// (SQLite at -O2, else the heatproject fixture): the "disassembly" lens above the hottest routine
// opens its listing beside the source; the listing has gutter heat, inlay hints with the figures and
// a link from a call instruction to the callee. Expected text from `gmonlens disasm` (the same
// renderer; its figures are held against gprof by tests/integration/test_disasm.py).

import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

import { prepare } from "./lineheat.mjs";
import { openWindow, quickOpen, sleep } from "./ui.mjs";

/** The hottest routine (flat profile) with a call instruction, its listing lines and its source line. */
function expected(repo, folder, binary, gmon, sourceFile) {
  const gmonlens = path.join(repo, ".venv", "bin", "gmonlens");
  const report = JSON.parse(execFileSync(gmonlens, ["report", "--json", binary, gmon], { encoding: "utf8", maxBuffer: 1 << 28 }));
  const source = fs.readFileSync(sourceFile, "utf8").split("\n");
  const base = path.basename(sourceFile);
  const hot = report.routines
    .filter((r) => r.self_seconds > 0 && r.file && path.basename(r.file) === base && r.line > 0)
    .sort((a, b) => b.self_seconds - a.self_seconds);
  for (const r of hot.slice(0, 5)) {
    const text = execFileSync(gmonlens, ["disasm", "--color=never", r.name, binary, gmon], { encoding: "utf8", maxBuffer: 1 << 28 });
    const lines = text.split("\n");
    const call = lines.findIndex((l) => /  # (\S+): \d+ calls?, ~/.test(l));
    if (call >= 0) {
      const callee = /  # (\S+): \d+ calls?, ~/.exec(lines[call])[1];
      // the line naming the routine: its DWARF line may be a few lines below the name (a
      // signature over several lines: SQLite's sqlite3BtreeIndexMoveto, 4), and the next line
      // after it naming the routine may be another routine's call or comment
      let line = -1;
      for (let i = r.line - 1; i >= Math.max(0, r.line - 12) && line < 0; i--) {
        if (source[i].includes(r.display_name)) line = i;
      }
      const hot = lines.find((l) => /^\*\s+\d/.test(l));
      const hotAddress = hot ? /\s([0-9a-f]+):  /.exec(hot)?.[1] : undefined;
      return { routine: r.display_name, line: (line >= 0 ? line : r.line - 1) + 1, callee, hotAddress };
    }
  }
  return undefined;
}

/** Find (Ctrl+F) `text` in the listing's editor (focused first): the cursor goes to its first match. */
async function find(page, text) {
  await page.locator('.monaco-editor[data-uri^="gmonlens-disasm:"] .view-lines').first().click().catch(() => undefined);
  await sleep(300);
  await page.keyboard.press("Control+F");
  const input = page.locator(".find-widget textarea, .find-widget input").first();
  await input.waitFor({ state: "visible", timeout: 10000 }).catch(() => undefined);
  await input.fill(text).catch(() => undefined);
  await sleep(300);
  await page.keyboard.press("Enter");
  await sleep(300);
  await page.keyboard.press("Escape");
  await sleep(300);
}

async function listingView(page) {
  return page.evaluate(() => {
    const editors = [...document.querySelectorAll(".monaco-editor")].filter((e) => e.getBoundingClientRect().width > 0);
    const editor =
      editors.find((e) => (e.getAttribute("data-uri") ?? "").startsWith("gmonlens-disasm:")) ??
      editors.find((e) => /%routine|samples/.test(e.textContent)) ??
      null;
    if (!editor) return { lines: [], gutter: 0, links: [] };
    const lines = [...editor.querySelectorAll(".view-lines .view-line")].map((el) => el.textContent.replace(/\u00a0/g, " "));
    const gutter = [...editor.querySelectorAll(".margin *")].filter((el) => /heat-\d\.svg/.test(getComputedStyle(el).backgroundImage)).length;
    const links = [...editor.querySelectorAll(".detected-link, .detected-link-active")].map((el) => el.textContent);
    return { lines, gutter, links };
  });
}

/** A fresh venv (no pip, no capstone) under `work`, checked: its python. */
export function pythonWithoutCapstone(work, check) {
  const bare = path.join(work, "python-without-capstone");
  if (!fs.existsSync(bare)) execFileSync("python3", ["-m", "venv", "--without-pip", bare]);
  const barePython = path.join(bare, "bin", "python");
  const probe = spawnSync(barePython, ["-I", "-c", "import capstone"], { encoding: "utf8" });
  check("disassembly: the server's Python has no capstone of its own", probe.status !== 0, probe.stderr.trim().split("\n").pop());
  return barePython;
}

/** The first visible lens link holding `hasText`, clicked (lenses are redrawn as they refresh:
 * tried again); whether a click landed. */
export async function clickLens(page, hasText) {
  const lens = page.locator(".codelens-decoration a:visible", { hasText }).first();
  await lens.waitFor({ timeout: 120000 }).catch(() => undefined);
  for (let i = 0; i < 10; i++) {
    const clicked = await lens.click({ timeout: 5000 }).then(
      () => true,
      (e) => (console.log(`lens click: ${String(e).split("\n")[0]}`), false),
    );
    if (clicked) return true;
  }
  return false;
}

/**
 * The platform-neutral package (no bundled capstone) with a Python that has none: the disassembly
 * lens gives one warning saying this package has no capstone and naming the platform packages, no
 * listing and no "no routine at the cursor" message. `page` shows the fixture's work.c.
 */
export async function universalChecks({ page, results, check }) {
  const clicked = await clickLens(page, "disassembly");
  let toasts = [];
  for (let i = 0; i < 60 && clicked && !toasts.some((t) => /platform-neutral/.test(t)); i++) {
    await sleep(500);
    toasts = (await page.locator(".notifications-toasts .notification-toast").allTextContents()).map((t) => t.replace(/\u00a0/g, " "));
  }
  await page.screenshot({ path: path.join(results, "12-platform-neutral.png") });
  const warning = toasts.find((t) => /platform-neutral/.test(t)) ?? "";
  check("platform-neutral package: the disassembly lens says capstone is missing and what to install",
    /no disassembly without the capstone module/.test(warning) && /gmonlens-<platform>-<version>\.vsix: linux-x64/.test(warning),
    clicked ? warning || toasts.join(" / ") : "the lens could not be clicked");
  const listing = await page.locator('.monaco-editor[data-uri^="gmonlens-disasm:"]').count();
  check("platform-neutral package: no listing opened, no 'no routine' message",
    listing === 0 && !toasts.some((t) => /no routine with a profile/.test(t)), toasts.join(" / "));
}

export async function disasmChecks({ browser, port, repo, work, results, check, goTo }) {
  const sqlite = path.join(work, "sqlite");
  if (!fs.existsSync(path.join(sqlite, "gmonlens.yaml")) && !fs.existsSync(path.join(work, "heatproject"))) {
    prepare(repo, work); // run alone: the program line heat would have built
  }
  const target = fs.existsSync(path.join(sqlite, "gmonlens.yaml"))
    ? { folder: sqlite, file: path.join(sqlite, "sqlite3.c") }
    : { folder: path.join(work, "heatproject"), file: path.join(work, "heatproject", "src", "main.c") };
  const yaml = fs.existsSync(path.join(target.folder, "gmonlens.yaml")) ? fs.readFileSync(path.join(target.folder, "gmonlens.yaml"), "utf8") : "";
  const binary = /binary: (.*)/.exec(yaml)?.[1] ?? path.join(target.folder, "build", "app");
  const gmon = /profiles: \[(.*)\]/.exec(yaml)?.[1] ?? path.join(target.folder, "build", "gmon.out");
  const want = expected(repo, target.folder, binary, gmon, target.file);
  // The listing needs capstone, which this platform's .vsix carries (bundled/native): this window's
  // server runs on a fresh venv that has no capstone of its own (`gmonlens.interpreter`), so the
  // listing can only come from the bundle.
  const barePython = pythonWithoutCapstone(work, check);
  fs.mkdirSync(path.join(target.folder, ".vscode"), { recursive: true });
  fs.writeFileSync(path.join(target.folder, ".vscode", "settings.json"), JSON.stringify({ "gmonlens.interpreter": barePython }));
  if (!check("disassembly: a hot routine with a call instruction", want !== undefined)) return;
  const page = await openWindow(browser, port, `folder=${encodeURIComponent(target.folder)}`);
  try {
    await sleep(2000);
    await quickOpen(page, target.file);
    await page.locator(".monaco-editor .view-lines").first().click();
    await goTo(page, want.line + 10, 1);
    await goTo(page, want.line, 1);
    // the lens above the routine: click its "disassembly" part (lenses are redrawn as they refresh:
    // click again until the listing shows)
    const lens = page.locator(".codelens-decoration a:visible", { hasText: "disassembly" }).first();
    await lens.waitFor({ timeout: 120000 }).catch(() => undefined);
    const found = await page.evaluate(() =>
      [...document.querySelectorAll(".codelens-decoration a")]
        .filter((a) => a.textContent.includes("disassembly"))
        .map((a) => `${Math.round(a.getBoundingClientRect().top)}:${a.getBoundingClientRect().height}`)
        .join(" "),
    );
    console.log(`disassembly lenses (top:height): ${found}`);
    let opened = false;
    let clicked = false;
    for (let i = 0; i < 10 && !clicked; i++) {
      clicked = await lens.click({ timeout: 5000 }).then(
        () => true,
        (e) => (console.log(`lens click: ${String(e).split("\n")[0]}`), false),
      );
    }
    // the first listing reads the DWARF's scopes unless the warm-up has cached them (SQLite: seconds)
    for (let k = 0; k < 360 && clicked && !opened; k++) {
      await sleep(500);
      opened = (await listingView(page)).lines.length > 0;
    }
    check(`disassembly: the lens of ${want.routine} opens the listing`, opened, clicked ? "" : "the lens could not be clicked");
    let seen = { lines: [], gutter: 0, links: [] };
    const hint = /\d+\.\d\d s · \d+\.\d%/;
    for (let i = 0; i < 60 && !(seen.gutter > 0 && seen.lines.some((l) => hint.test(l))); i++) {
      await sleep(1000);
      seen = await listingView(page);
      if (i === 5 && seen.lines.length && want.hotAddress) await find(page, `${want.hotAddress}:`); // the hottest instruction
    }
    await page.screenshot({ path: path.join(results, "10-disassembly.png") });
    await page.screenshot({ path: path.join(results, "readme-disassembly.png"), clip: { x: 348, y: 64, width: 932, height: 560 } });
    if (process.env.UPDATE_README_SCREENSHOT === "1") {
      fs.copyFileSync(path.join(results, "readme-disassembly.png"), path.join(repo, "vscode-extension", "images", "disassembly.png"));
    }
    check("disassembly: listing shown with its header", seen.lines.some((l) => l.includes("%routine")) || seen.lines.length > 0,
      seen.lines.slice(0, 2).join(" / "));
    check("disassembly: gutter heat on the hot instructions", seen.gutter > 0, `${seen.gutter} icons`);
    check("disassembly: inlay hints with the instructions' figures", seen.lines.some((l) => hint.test(l)));
    await find(page, `# ${want.callee}:`);
    for (let i = 0; i < 20 && !seen.links.includes(want.callee); i++) {
      await sleep(500);
      seen = await listingView(page);
    }
    await page.screenshot({ path: path.join(results, "11-disassembly-call.png") });
    check(`disassembly: the call to ${want.callee} links to its source`, seen.links.includes(want.callee), seen.links.join(", "));
  } finally {
    await page.close();
  }
}
