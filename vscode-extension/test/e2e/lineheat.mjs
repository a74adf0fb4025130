// Line heat in a real VS Code (part of run.mjs): the gutter heat bar, the inlay hint at the end of the
// hottest line with its figures, the hover on a heated line, and the toggle command.
//
// The program is SQLite (bench/sqlite_prog.py: the 9 MB amalgamation at -O2 and its workload): its
// sources from $GMONLENS_SQLITE_DIR, bench/work/sqlite/src or bench/work/realprogs/sqlite/src (the
// real-program tier's), else fetched from the npm registry as bench/sqlite_prog.py does. Only when
// that fails too (no registry) is the -O2 fixture tests/fixtures/workspaces/heatproject used (a
// header helper inlined into its caller), and the test says so. The expected figures come from the engine (held against gprof -l by the Python tests).

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

import { openWindow, quickOpen, sleep } from "./ui.mjs";

/** Builds the program to look at; returns { folder, file (to open), binary, gmon, label }. */
export function prepare(repo, work) {
  const python = path.join(repo, ".venv", "bin", "python");
  const candidates = [
    process.env.GMONLENS_SQLITE_DIR,
    path.join(repo, "bench", "work", "sqlite", "src"),
    path.join(repo, "bench", "work", "realprogs", "sqlite", "src"),
  ].filter(Boolean);
  let sqliteSrc = candidates.find((d) => fs.existsSync(path.join(d, "sqlite3.c")));
  if (!sqliteSrc && fs.existsSync(python)) {
    try {
      sqliteSrc = execFileSync(
        python,
        ["-c", "import sys; sys.path.insert(0, 'bench'); import sqlite_prog as s; print(s.fetch())"],
        { cwd: repo, encoding: "utf8", timeout: 300000 },
      ).trim().split("\n").pop();
    } catch (e) {
      console.log(`note: SQLite's sources could not be fetched (${String(e).split("\n")[0]}); line heat is shown on the fixture`);
    }
  }
  if (sqliteSrc && fs.existsSync(path.join(sqliteSrc, "sqlite3.c")) && fs.existsSync(python)) {
    const out = execFileSync(
      python,
      ["-c", "import sys; sys.path.insert(0, 'bench'); import sqlite_prog as s; e = s.build(s.fetch()); print(e); print(s.run_workload(e))"],
      { cwd: repo, encoding: "utf8", env: { ...process.env, GMONLENS_SQLITE_DIR: sqliteSrc }, timeout: 600000 },
    ).trim().split("\n");
    const [binary, gmon] = out.slice(-2);
    const folder = path.join(work, "sqlite");
    fs.mkdirSync(folder, { recursive: true });
    for (const f of ["sqlite3.c", "sqlite3.h"]) fs.copyFileSync(path.join(sqliteSrc, f), path.join(folder, f));
    fs.writeFileSync(path.join(folder, "gmonlens.yaml"), `binary: ${binary}\nprofiles: [${gmon}]\n`);
    return { folder, binary, gmon, label: "SQLite (sqlite3.c, -O2)" };
  }
  const folder = path.join(work, "heatproject");
  fs.cpSync(path.join(repo, "tests", "fixtures", "workspaces", "heatproject"), folder, { recursive: true });
  execFileSync(path.join(folder, "build.sh"));
  return { folder, binary: path.join(folder, "build", "app"), gmon: path.join(folder, "build", "gmon.out"), label: "fixture heatproject (-O2)" };
}

/**
 * The engine's line heat (gmonlens.profile.line_heat, held against `gprof -b -l -p` line by line in
 * tests/integration/test_line_heat.py; gprof -l itself takes minutes on SQLite), summed per
 * (file basename, line), hottest first.
 */
function engineLines(repo, binary, gmon) {
  const code = [
    "import json, os, sys",
    "from gmonlens.load.loader import load",
    "from gmonlens.load.program import open_elf",
    "from gmonlens.dwarf.line_table import LineTable",
    "from gmonlens.profile.line_heat import compute_line_heat",
    "l = load(sys.argv[1], [sys.argv[2]])",
    "with open_elf(sys.argv[1]) as elf:",
    "    table = LineTable.from_elf(elf)",
    "h = compute_line_heat(l.profile, l.gmon.histograms, table)",
    "out = [dict(file=os.path.basename(f.file), line=f.line, seconds=h.seconds(f.ticks)) for fs in h.lines.values() for f in fs]",
    "print(json.dumps(sorted(out, key=lambda e: -e['seconds'])))",
  ].join("\n");
  const python = path.join(repo, ".venv", "bin", "python");
  return JSON.parse(execFileSync(python, ["-c", code, binary, gmon], { encoding: "utf8", maxBuffer: 1 << 28 }));
}

async function visibleHover(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll(".monaco-hover")]
      .filter((el) => el.getBoundingClientRect().height > 0 && !el.classList.contains("hidden"))
      .map((el) => el.textContent.replace(/\u00a0/g, " "))
      .join("\n"),
  );
}

/** The editor's rendered lines (text with inlay hints) and the gutter icons' vertical positions. */
async function rendered(page) {
  return page.evaluate(() => {
    const editor = document.querySelector(".monaco-editor");
    if (!editor) return { lines: [], gutter: [] };
    const lines = [...editor.querySelectorAll(".view-lines .view-line")].map((el) => ({
      top: Math.round(el.getBoundingClientRect().top),
      text: el.textContent.replace(/\u00a0/g, " "),
    }));
    // gutter icons: glyph-margin elements (.cgmr in .glyph-margin-widgets or .margin-view-overlays,
    // depending on the VS Code version) whose background is one of images/heat-N.svg
    const gutter = [...editor.querySelectorAll(".margin *")]
      .filter((el) => /heat-\d\.svg/.test(getComputedStyle(el).backgroundImage))
      .map((el) => Math.round(el.getBoundingClientRect().top));
    return { lines, gutter };
  });
}

export async function lineHeatChecks({ browser, port, repo, work, results, check, runCommand, goTo, update }) {
  let target;
  try {
    target = prepare(repo, work);
  } catch (e) {
    check("line heat: program built and run", false, String(e).split("\n")[0]);
    return;
  }
  let hot = [];
  try {
    hot = engineLines(repo, target.binary, target.gmon);
  } catch (e) {
    console.log(`line heat: the engine failed: ${String(e).split("\n")[0]}`);
  }
  const top = hot[0];
  if (!check(`line heat: the engine finds hot lines (${target.label})`, top !== undefined)) return;
  const file = path.join(target.folder, top.file === "mix.h" ? "src/mix.h" : top.file === "main.c" ? "src/main.c" : top.file);
  console.log(`line heat on ${target.label}: hottest line ${top.file}:${top.line}, ${top.seconds.toFixed(2)} s`);

  const page = await openWindow(browser, port, `folder=${encodeURIComponent(target.folder)}`);
  try {
    await sleep(2000);
    await quickOpen(page, file);
    await sleep(1000);
    await page.locator(".monaco-editor .view-lines").first().click();
    // the hottest line in the middle of the view
    await goTo(page, top.line + 12, 1);
    await goTo(page, top.line, 1);
    const source = fs.readFileSync(file, "utf8").split("\n");
    const lineText = source[top.line - 1].trim();
    const hint = /(\d+\.\d\d) s · (\d+\.\d)%/;
    let seen = { lines: [], gutter: [] };
    let row;
    const deadline = Date.now() + 120000;
    while (Date.now() < deadline) {
      seen = await rendered(page);
      row = seen.lines.find((l) => l.text.includes(lineText) && hint.test(l.text.slice(l.text.indexOf(lineText))));
      if (row && seen.gutter.length > 0) break;
      await sleep(1000);
    }
    await page.screenshot({ path: path.join(results, "8-line-heat.png") });
    await page.screenshot({ path: path.join(results, "readme-line-heat.png"), clip: { x: 348, y: 64, width: 932, height: 560 } });
    if (update) fs.copyFileSync(path.join(results, "readme-line-heat.png"), path.join(repo, "vscode-extension", "images", "line-heat.png"));
    const m = row ? hint.exec(row.text.slice(row.text.indexOf(lineText))) : null;
    check("line heat: inlay hint at the end of the hottest line with its seconds",
      m !== null && m[1] === top.seconds.toFixed(2),
      `${row ? row.text.trim().slice(-60) : "no hint"} (want ${top.seconds.toFixed(2)} s)`);
    check("line heat: gutter heat bar next to the hottest line",
      row !== undefined && seen.gutter.some((t) => Math.abs(t - row.top) <= 3), `${seen.gutter.length} icons`);

    // Hovering the heated line says its figures and routine.
    await goTo(page, top.line, Math.max(2, source[top.line - 1].search(/\S/) + 2));
    await runCommand(page, "Show or Focus Hover");
    let hover = "";
    for (let i = 0; i < 30 && !/Line heat/.test(hover); i++) {
      await sleep(300);
      hover = await visibleHover(page);
      // a repaint (the inlay-hint refresh when the heat is ready) may close the hover: ask again
      if (!/Line heat/.test(hover) && i % 8 === 7) await runCommand(page, "Show or Focus Hover");
    }
    await page.screenshot({ path: path.join(results, "9-line-heat-hover.png") });
    check("line heat: hover on the heated line gives its figures and routine",
      /Line heat: \d+\.\d\d s, \d+\.\d% of the total time, in \S+/.test(hover), hover.slice(0, 200).replace(/\s+/g, " "));
    await page.keyboard.press("Escape");

    // The toggle hides the gutter bar and the hints, and brings them back.
    await runCommand(page, "gmonlens: Toggle Line Heat");
    let off = seen;
    for (let i = 0; i < 30; i++) {
      await sleep(500);
      off = await rendered(page);
      if (off.gutter.length === 0 && !off.lines.some((l) => hint.test(l.text))) break;
    }
    check("line heat: Toggle Line Heat hides the gutter bar and the inlay hints",
      off.gutter.length === 0 && !off.lines.some((l) => hint.test(l.text)), `${off.gutter.length} icons`);
    await runCommand(page, "gmonlens: Toggle Line Heat");
    let on = off;
    for (let i = 0; i < 30; i++) {
      await sleep(500);
      on = await rendered(page);
      if (on.gutter.length > 0 && on.lines.some((l) => hint.test(l.text))) break;
    }
    check("line heat: toggling again shows them again", on.gutter.length > 0 && on.lines.some((l) => hint.test(l.text)),
      `${on.gutter.length} icons`);
  } finally {
    await page.close();
  }
}
