// vsce's `vscode:prepublish` hook (it runs before every `vsce package`): packages are built by the
// Makefile only (make vsix, vsix-all, vsix-universal; `npm run package` is `make vsix`), which fills
// bundled/ for the target and names it in GMONLENS_VSIX_TARGET (a VS Code target, or `none` for the
// platform-neutral package). Run any other way, vsce would pack bundled/ as it happens to be (stale
// libs, another target's capstone, or none): it stops here instead, saying so.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const target = process.env.GMONLENS_VSIX_TARGET ?? "";
const capstone = fs.existsSync(path.join(root, "bundled", "native", "capstone"));

function fail(why) {
  console.error(`vscode:prepublish: ${why}; build packages with make vsix (see DEVELOPING.md)`);
  process.exit(1);
}

if (target === "") {
  fail("vsce was not run by the Makefile, which fills bundled/ for the package's target");
}
if (!fs.existsSync(path.join(root, "bundled", "libs", "gmonlens_lsp"))) {
  fail("bundled/libs holds no server");
}
if (target === "none" && capstone) {
  fail("the platform-neutral package would carry bundled/native (another target's capstone)");
}
if (target !== "none" && !capstone) {
  fail(`the ${target} package would carry no capstone (bundled/native is empty)`);
}
