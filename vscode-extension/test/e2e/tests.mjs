// A `gmonlens test` folder in a real VS Code (part of run.mjs; issue 29): the CMake fixture
// tests/fixtures/workspaces/suiteproject built with -pg, its CTest suite run by the repository's
// `gmonlens test -j4` (all but `slow`, which only waits for its time limit) into the folder's
// default gmonlens-test/. With no setting the folder loads the whole suite; the hover on `alpha`
// says which tests reach it and that `big` (100 calls, known by construction) costs most; "gmonlens:
// Show a Test's Profile" picks test `mid`, and the lens above alpha then shows its 10 calls.
// Skipped (said) without cmake or the repository's .venv.

import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

import { openWindow, quickOpen, sleep } from "./ui.mjs";

function prepare(repo, work) {
  const gmonlens = path.join(repo, ".venv", "bin", "gmonlens");
  if (spawnSync("sh", ["-c", "command -v cmake ctest"], { encoding: "utf8" }).status !== 0 || !fs.existsSync(gmonlens)) {
    return undefined;
  }
  const folder = path.join(work, "suite");
  fs.cpSync(path.join(repo, "tests", "fixtures", "workspaces", "suiteproject"), folder, { recursive: true });
  execFileSync("cmake", ["-S", ".", "-B", "build", "-DCMAKE_C_FLAGS=-pg -g -O0", "-DCMAKE_EXE_LINKER_FLAGS=-pg"], { cwd: folder });
  execFileSync("cmake", ["--build", "build"], { cwd: folder });
  // exit status 1: the fixture's `failing` test fails, as it should; the folder is written all the same
  spawnSync(gmonlens, ["test", "-j4", "--", "ctest", "--test-dir", "build", "-E", "slow"], { cwd: folder, encoding: "utf8" });
  return fs.existsSync(path.join(folder, "gmonlens-test", "index.json")) ? folder : undefined;
}

async function visibleHover(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll(".monaco-hover")]
      .filter((el) => el.getBoundingClientRect().height > 0 && !el.classList.contains("hidden"))
      .map((el) => el.textContent.replace(/\u00a0/g, " "))
      .join("\n"),
  );
}

/** The lens right above the editor line holding `needle`. */
async function lensAbove(page, needle) {
  return page.evaluate((needle) => {
    const lines = [...document.querySelectorAll(".monaco-editor .view-lines .view-line")].map((el) => ({
      top: el.getBoundingClientRect().top,
      text: el.textContent.replace(/\u00a0/g, " "),
    }));
    for (const el of document.querySelectorAll(".monaco-editor .codelens-decoration")) {
      const bottom = el.getBoundingClientRect().bottom;
      const below = lines.filter((l) => l.top >= bottom - 2).sort((a, b) => a.top - b.top)[0];
      if (below && below.text.includes(needle)) return el.textContent.replace(/\u00a0/g, " ");
    }
    return "";
  }, needle);
}

export async function testsChecks({ browser, port, repo, work, results, check, runCommand, goTo }) {
  let folder;
  try {
    folder = prepare(repo, work);
  } catch (e) {
    check("gmonlens test: the CMake suite built and run", false, String(e).split("\n")[0]);
    return;
  }
  if (!folder) {
    console.log("note: cmake or the repository's .venv is missing: the gmonlens test checks are skipped");
    return;
  }
  const page = await openWindow(browser, port, `folder=${encodeURIComponent(folder)}`);
  try {
    await sleep(2000);
    const work_c = path.join(folder, "work.c");
    await quickOpen(page, work_c, { hasText: "alpha" });
    let lens = "";
    for (let i = 0; i < 90 && !/ 100 calls| 1\d\d calls/.test(lens); i++) {
      await sleep(1000);
      lens = await lensAbove(page, "int alpha(int x)");
    }
    // the whole suite: alpha called 1+10+100+7+5+3+11+2+4 = 143 times over the tests
    check("gmonlens test folder: the whole suite loads with no setting (alpha's calls over every test)", lens.includes(" 143 calls"), lens);

    const source = fs.readFileSync(work_c, "utf8").split("\n");
    const line = source.findIndex((l) => l.includes("int alpha(int x)"));
    await page.locator(".monaco-editor .view-lines").first().click();
    await goTo(page, line + 1, source[line].indexOf("alpha") + 2);
    let hover = "";
    for (let i = 0; i < 20 && !/costliest/.test(hover); i++) {
      await runCommand(page, "Show or Focus Hover");
      await sleep(700);
      hover = await visibleHover(page);
      if (!/costliest/.test(hover)) await page.keyboard.press("Escape");
    }
    await page.screenshot({ path: path.join(results, "9-tests-hover.png") });
    check("the hover names the costliest test of alpha with its exact calls",
      /Tests: reached by 9 of 11 tests; costliest: big 100 calls/.test(hover), hover.slice(0, 400));
    await page.keyboard.press("Escape");

    await runCommand(page, "gmonlens: Show a Test's Profile");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: 15000 });
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "mid" }).first().waitFor({ timeout: 15000 });
    await page.screenshot({ path: path.join(results, "9-tests-pick.png") });
    await input.fill("mid");
    await sleep(500);
    await page.keyboard.press("Enter");
    lens = "";
    for (let i = 0; i < 60 && !lens.includes(" 10 calls"); i++) {
      await sleep(1000);
      lens = await lensAbove(page, "int alpha(int x)");
    }
    await page.screenshot({ path: path.join(results, "9-tests-one-test.png") });
    check("Show a Test's Profile: test mid's profile loads (alpha: 10 calls)", lens.includes(" 10 calls"), lens);
  } finally {
    await page.close();
  }
}
