// End-to-end checks of the call graph panel (called from run.mjs): the hover's "Show call graph" link
// opens the panel around spin with gprof's callers, Graphviz draws it inside the webview, clicking a
// node opens its source (and, unpinned, re-centres the graph), the whole-program view, and the panel
// following a reload of the profile. Webviews in code-server are nested iframes: the webview's iframe,
// then its #active-frame.
import * as fs from "node:fs";
import * as path from "node:path";

import { cursorOn, openWindow, quickOpen, sleep } from "./ui.mjs";

const panelFrame = (page) => page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");

async function summaryText(frame, want, ms = 20000) {
  const el = frame.locator("#summary");
  let text = "";
  for (const end = Date.now() + ms; Date.now() < end; await sleep(300)) {
    text = ((await el.textContent({ timeout: 2000 }).catch(() => "")) ?? "").replace(/\u00a0/g, " ");
    if (want.test(text)) break;
  }
  return text;
}

async function nodeNames(frame) {
  return (await frame.locator("#graph g.node text").allTextContents().catch(() => [])).map((t) => t.trim());
}

/** Opens the panel from the hover on spin and checks it; leaves it open (see checkReloaded). */
export async function checkCallGraph(page, { folder, source, gprof, check, runCommand, goTo, results, ext }) {
  const spinLine = source.findIndex((l) => /\bspin\(long n\)/.test(l));
  await page.locator(".monaco-editor .view-lines").first().click();
  await goTo(page, spinLine + 1, source[spinLine].indexOf("spin") + 2);
  await runCommand(page, "Show or Focus Hover");
  const link = page.locator(".monaco-hover a", { hasText: "Show call graph" }).first();
  const linked = await link.waitFor({ timeout: 15000 }).then(() => true, () => false);
  check("the hover on spin has a Show call graph link", linked);
  if (linked) {
    await link.click();
  } else {
    await page.keyboard.press("Escape");
    await runCommand(page, "gmonlens: Show Call Graph");
  }
  const frame = panelFrame(page);
  const callers = (gprof.callers.get("spin") ?? []).map((c) => c.name);
  const around = await summaryText(frame, /around spin/);
  let names = [];
  for (const end = Date.now() + 20000; Date.now() < end; await sleep(300)) {
    names = await nodeNames(frame);
    if (callers.every((c) => names.some((n) => n.startsWith(c)))) break;
  }
  // The hover that held the link may still be up over the panel: close it.
  await page.keyboard.press("Escape");
  for (let i = 0; i < 20; i++) {
    const up = await page.evaluate(() =>
      [...document.querySelectorAll(".monaco-hover")].some((el) => el.getBoundingClientRect().height > 0 && !el.classList.contains("hidden")),
    );
    if (!up) break;
    await page.keyboard.press("Escape");
    await sleep(250);
  }
  const ms = await frame.locator("#graph").getAttribute("data-render-ms", { timeout: 2000 }).catch(() => null);
  await sleep(500);
  await page.screenshot({ path: path.join(results, "8-call-graph.png") });
  await page.screenshot({ path: path.join(results, "readme-call-graph.png"), clip: { x: 348, y: 64, width: 932, height: 560 } });
  if (process.env.UPDATE_README_SCREENSHOT === "1") {
    fs.copyFileSync(path.join(results, "readme-call-graph.png"), path.join(ext, "images", "call-graph.png"));
  }
  check("the call graph panel shows the graph around spin, laid out in the webview",
    /around spin/.test(around) && ms !== null, `${around} (layout ${ms} ms)`);
  check("the graph has spin and gprof's callers of spin",
    callers.length > 0 && [...callers, "spin"].every((c) => names.some((n) => n.startsWith(c))),
    `${JSON.stringify(names)} (want ${callers.join(", ")})`);
  const spinNode = await frame.locator("#graph g.node", { hasText: "spin" }).first().textContent().catch(() => "");
  const spin = gprof.routines.get("spin");
  check("spin's node shows gprof's self seconds and calls",
    spin !== undefined && spinNode.includes(`${spin.self} s`) && spinNode.includes(`${spin.calls}×`), `${spinNode} (want ${spin?.self} s, ${spin?.calls}×)`);

  // Clicking mix's node opens work.c at mix (and, unpinned, centres the graph on mix).
  const mixLine = source.findIndex((l) => /\bmix\(int k\)/.test(l)) + 1;
  await frame.locator("#graph g.node", { hasText: /^\s*mix/ }).first().click({ timeout: 10000 }).catch((e) => console.log(`click: ${e.message}`));
  const { where, tab } = await cursorOn(page, mixLine, 30);
  check("clicking mix's node opens its source", where.includes(`Ln ${mixLine},`) && tab.includes("work.c"), `${tab} ${where} (want work.c line ${mixLine})`);
  const recentred = await summaryText(frame, /around mix/);
  check("unpinned, the graph re-centres on the clicked routine", /around mix/.test(recentred), recentred);

  // Unpinned, the graph follows the routine under the cursor: churn's name at its definition.
  const churnLine = source.findIndex((l) => /\bchurn\(int n\)/.test(l));
  await goTo(page, churnLine + 1, source[churnLine].indexOf("churn") + 2);
  const followed = await summaryText(frame, /around churn/);
  check("unpinned, the graph follows the routine under the cursor", /around churn/.test(followed), followed);
  // One more level of depth: asked again around the same routine.
  await frame.locator("#depth-up").click({ timeout: 5000 }).catch((e) => console.log(`depth: ${e.message}`));
  const deeper = await summaryText(frame, /around churn, depth 3/);
  check("the depth control asks for one more level", /around churn, depth 3/.test(deeper), deeper);
  // Pinned, it stays.
  await frame.locator("#pinned").check({ timeout: 5000 }).catch((e) => console.log(`pinned: ${e.message}`));
  await sleep(300);
  await page.locator(".monaco-editor .view-lines").first().click();
  await goTo(page, spinLine + 1, source[spinLine].indexOf("spin") + 2);
  await sleep(2000);
  const stayed = await summaryText(frame, /around churn/, 2000);
  check("pinned, the graph stays", /around churn/.test(stayed), stayed);
  await frame.locator("#pinned").uncheck({ timeout: 5000 }).catch(() => undefined);

  // The whole program, pruned as the dot export prunes it.
  await frame.locator("#whole").check({ timeout: 5000 }).catch((e) => console.log(`whole: ${e.message}`));
  const whole = await summaryText(frame, /whole program/);
  await sleep(500);
  names = await nodeNames(frame);
  await page.screenshot({ path: path.join(results, "8b-call-graph-whole.png") });
  // square's 0.00 s is under the dot export's 0.5% threshold: pruned, and the summary says so.
  check("the whole-program view shows main, mix, churn and spin, square pruned under 0.5%",
    /whole program/.test(whole) && /1 routines and \d+ calls below 0\.5% \/ 0\.1% not shown/.test(whole) &&
      ["main", "mix", "churn", "spin"].every((c) => names.some((n) => n.startsWith(c))) && !names.some((n) => n.startsWith("square")),
    `${whole} ${JSON.stringify(names)}`);
  await page.locator(".monaco-editor .view-lines").first().click();
}

/** The generation of the profile the open panel shows (null without a graph). */
export async function graphGeneration(page) {
  return panelFrame(page).locator("#graph").getAttribute("data-generation", { timeout: 2000 }).catch(() => null);
}

/** After a new run of the program: the open panel asked for the graph again (a newer generation). */
export async function checkReloaded(page, before, check) {
  const frame = panelFrame(page);
  let generation = null;
  for (const end = Date.now() + 20000; Date.now() < end; await sleep(500)) {
    generation = await frame.locator("#graph").getAttribute("data-generation", { timeout: 2000 }).catch(() => null);
    if (generation !== null && generation !== before.generation) break;
  }
  check("the open call graph follows the reloaded profile", generation !== null && generation !== before.generation,
    `generation ${before.generation} -> ${generation}`);
}

/**
 * The panel on a real program (the folder line heat prepared: SQLite's sqlite3.c when its sources are
 * at hand, else the heatproject fixture): the whole-program view, then a click on the hottest
 * routine with source lands on its line.
 */
export async function checkCallGraphOn({ browser, port, folder, file, label, check, runCommand, results, ext }) {
  const page = await openWindow(browser, port, `folder=${encodeURIComponent(folder)}`);
  try {
    await sleep(2000);
    await quickOpen(page, file);
    // The status bar says loaded before the graph is asked for.
    const status = page.locator(".statusbar-item", { hasText: "gprof" }).first();
    for (let i = 0; i < 240 && !/\d+ routines/.test((await status.textContent().catch(() => "")) ?? ""); i++) await sleep(500);
    await runCommand(page, "gmonlens: Show Call Graph");
    const frame = panelFrame(page);
    // The cursor is on no routine's name: tick Whole program.
    await frame.locator("#whole").check({ timeout: 30000 }).catch((e) => console.log(`whole: ${e.message}`));
    const whole = await summaryText(frame, /whole program .* laid out in \d+ ms/, 60000);
    const nodes = await frame.locator("#graph g.node").evaluateAll((els) =>
      els.map((g) => ({ id: g.id, source: g.dataset.source ?? "", name: g.querySelector("text")?.textContent ?? "", color: g.querySelector("path, polygon")?.getAttribute("fill") ?? "" })),
    ).catch(() => []);
    await sleep(500);
    await page.screenshot({ path: path.join(results, "9-call-graph-real.png") });
    check(`call graph on ${label}: the whole-program view is laid out`, /whole program/.test(whole) && nodes.length > 1,
      `${whole} (${nodes.length} nodes)`);
    // Nodes come in address order; take the first with a source in the opened file, not main.
    const target = nodes.find((n) => n.source.startsWith(`${path.basename(file)}:`) && n.name !== "main");
    if (!check(`call graph on ${label}: a routine of ${path.basename(file)} is in the graph`, target !== undefined, JSON.stringify(nodes.slice(0, 8)))) return;
    const line = Number(target.source.split(":").pop());
    await frame.locator(`#graph g.node#${target.id}`).click({ timeout: 10000 }).catch((e) => console.log(`click: ${e.message}`));
    const { where, tab } = await cursorOn(page, line, 40);
    await page.screenshot({ path: path.join(results, "9b-call-graph-real-click.png") });
    check(`call graph on ${label}: clicking ${target.name} lands on its source`, where.includes(`Ln ${line},`) && tab.includes(path.basename(file)),
      `${tab} ${where} (want ${target.source})`);
    await checkFlameGraph(page, frame, { file, label, check, results, ext });
  } finally {
    await page.close().catch(() => undefined);
  }
}

/**
 * The flame graph view of the open panel on a real program: drawn from the server's frames (estimates
 * hatched, with their tooltip), a click zooms into a frame, search highlights a routine's frames,
 * Alt+click shows its butterfly with exact call counts, Ctrl+click opens its source.
 */
async function checkFlameGraph(page, frame, { file, label, check, results, ext }) {
  await frame.locator("#flame").check({ timeout: 10000 }).catch((e) => console.log(`flame: ${e.message}`));
  const drawn = await summaryText(frame, /flame graph .* drawn in \d+ ms/, 60000);
  const frames = await frame.locator("#flame-frames .frame").evaluateAll((els) =>
    els.map((el) => {
      const r = el.getBoundingClientRect();
      return { i: el.dataset.frame, name: el.textContent ?? "", source: el.dataset.source ?? "", width: r.width, estimated: el.classList.contains("estimated"), title: el.getAttribute("title") ?? "" };
    }),
  ).catch(() => []);
  const ms = await frame.locator("#flame-area").getAttribute("data-render-ms", { timeout: 2000 }).catch(() => null);
  await sleep(300);
  await page.screenshot({ path: path.join(results, "10-flame-graph.png") });
  await page.screenshot({ path: path.join(results, "readme-flame-graph.png"), clip: { x: 348, y: 64, width: 932, height: 560 } });
  if (process.env.UPDATE_README_SCREENSHOT === "1") {
    fs.copyFileSync(path.join(results, "readme-flame-graph.png"), path.join(ext, "images", "flame-graph.png"));
  }
  check(`flame graph on ${label}: drawn from the server's frames`, /flame graph/.test(drawn) && frames.length > 1 && ms !== null,
    `${drawn} (${frames.length} frames, ${ms} ms)`);
  const est = frames.find((f) => f.estimated);
  check(`flame graph on ${label}: estimates are hatched and say so`, est === undefined || /Estimate:/.test(est.title),
    est ? est.title.split("\n").slice(-2).join(" ") : "no estimated frame");

  // a click zooms into the widest frame below the roots
  const below = frames.filter((f) => !/^main$/.test(f.name) && f.width > 4).sort((a, b) => b.width - a.width)[0];
  if (!check(`flame graph on ${label}: a frame to zoom into`, below !== undefined, JSON.stringify(frames.slice(0, 5)))) return;
  await frame.locator(`#flame-frames .frame[data-frame="${below.i}"]`).click({ timeout: 10000 }).catch((e) => console.log(`zoom: ${e.message}`));
  let zoom = null;
  for (let k = 0; k < 20 && zoom !== below.i; k++, await sleep(200)) {
    zoom = await frame.locator("#flame-area").getAttribute("data-zoom").catch(() => null);
  }
  const zoomedWidth = await frame.locator(`#flame-frames .frame[data-frame="${below.i}"]`).evaluate((el) => el.getBoundingClientRect().width).catch(() => 0);
  check(`flame graph on ${label}: clicking a frame zooms into it`, zoom === below.i && zoomedWidth >= below.width, `zoom ${zoom}, width ${below.width} -> ${zoomedWidth}`);
  await frame.locator("#unzoom").click({ timeout: 5000 }).catch(() => undefined);

  // search highlights every frame of a routine
  const base = below.name.replace(/\(.*$/, "");
  await frame.locator("#search").fill(base, { timeout: 5000 }).catch((e) => console.log(`search: ${e.message}`));
  await sleep(300);
  const matches = await frame.locator("#flame-frames .frame.match").count().catch(() => 0);
  check(`flame graph on ${label}: search highlights ${base}'s frames`, matches >= 1, `${matches} frames`);
  await frame.locator("#search").fill("", { timeout: 5000 }).catch(() => undefined);

  // Alt+click: the butterfly, callers above and callees below with exact call counts
  await frame.locator(`#flame-frames .frame[data-frame="${below.i}"]`).click({ modifiers: ["Alt"], timeout: 10000 }).catch((e) => console.log(`butterfly: ${e.message}`));
  let bf = "";
  for (let k = 0; k < 40 && !/Callers of/.test(bf); k++, await sleep(250)) {
    bf = (await frame.locator("#butterfly").textContent({ timeout: 1000 }).catch(() => "")) ?? "";
  }
  check(`flame graph on ${label}: Alt+click shows the butterfly with call counts`, /Callers of/.test(bf) && /\d+\/\d+ calls/.test(bf), bf.slice(0, 200));
  await page.screenshot({ path: path.join(results, "10b-flame-butterfly.png") });

  // Ctrl+click on a frame with source in the file: the editor opens it at the routine's line
  const target = frames.filter((f) => f.source.startsWith(`${path.basename(file)}:`) && f.name !== "main" && f.width >= 2).sort((a, b) => b.width - a.width)[0];
  if (!check(`flame graph on ${label}: a frame of ${path.basename(file)}`, target !== undefined, JSON.stringify(frames.slice(0, 5)))) return;
  const line = Number(target.source.split(":").pop());
  await frame.locator(`#flame-frames .frame[data-frame="${target.i}"]`).click({ modifiers: ["ControlOrMeta"], timeout: 10000 }).catch((e) => console.log(`open: ${e.message}`));
  const { where, tab } = await cursorOn(page, line, 40);
  await page.screenshot({ path: path.join(results, "10c-flame-open.png") });
  check(`flame graph on ${label}: Ctrl+click on ${target.name} opens its source`, where.includes(`Ln ${line},`) && tab.includes(path.basename(file)),
    `${tab} ${where} (want ${target.source})`);
}
