// What the e2e scripts do in the VS Code window again and again: open a folder or workspace in a new
// page, quick-open a file, wait for the cursor to land on a line.

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A new page on code-server showing `query` (`folder=...` or `workspace=...`), the workbench up. */
export async function openWindow(browser, port, query) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`http://127.0.0.1:${port}/?${query}`);
  await page.locator(".monaco-workbench").waitFor({ timeout: 60000 });
  return page;
}

/** Ctrl+P, `file`, Enter; waits for the editor's lines (holding `hasText` when given). */
export async function quickOpen(page, file, { hasText, timeout = 30000 } = {}) {
  await page.keyboard.press("Control+P");
  const qo = page.locator(".quick-input-widget input");
  await qo.waitFor({ state: "visible", timeout: 10000 });
  await qo.fill(file);
  await page.locator(".quick-input-list .monaco-list-row").first().waitFor({ timeout: 15000 });
  await sleep(500);
  await page.keyboard.press("Enter");
  await page.locator(".monaco-editor .view-lines", hasText ? { hasText } : {}).first().waitFor({ timeout });
}

/** Waits (up to `tries` × 300 ms) for the cursor to be on `line`; the status bar's position text and
 * the active tab's title. */
export async function cursorOn(page, line, tries) {
  const cursor = page.locator(".statusbar-item", { hasText: /Ln \d+, Col \d+/ }).first();
  let where = "";
  for (let i = 0; i < tries && !where.includes(`Ln ${line},`); i++) {
    await sleep(300);
    where = ((await cursor.textContent().catch(() => "")) ?? "").replace(/\u00a0/g, " ");
  }
  const tab = ((await page.locator(".tab.active").first().textContent().catch(() => "")) ?? "").trim();
  return { where, tab };
}

/** Each lens with the routine defined on the editor line right below it. */
export async function lensesWithLines(page) {
  return page.evaluate(() => {
    const lines = [...document.querySelectorAll(".monaco-editor .view-lines .view-line")].map((el) => ({
      top: el.getBoundingClientRect().top,
      text: el.textContent.replace(/\u00a0/g, " "),
    }));
    return [...document.querySelectorAll(".monaco-editor .codelens-decoration")].map((el) => {
      const bottom = el.getBoundingClientRect().bottom;
      const below = lines.filter((l) => l.top >= bottom - 2).sort((a, b) => a.top - b.top)[0];
      return { lens: el.textContent.replace(/\u00a0/g, " "), line: below ? below.text : "" };
    });
  });
}
