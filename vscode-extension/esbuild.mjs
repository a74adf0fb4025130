// Bundles src/extension.ts and vscode-languageclient into dist/extension.js (CommonJS, node), and the call
// graph panel's script (webview/callGraphView.ts) with Graphviz (@viz-js/viz, WebAssembly embedded) into
// media/callGraphView.js. esbuild strips the types; `make typecheck` checks them (tsc, both projects).
import * as esbuild from "esbuild";

const watch = process.argv.includes("--watch");
const options = {
  entryPoints: ["src/extension.ts"],
  bundle: true,
  outfile: "dist/extension.js",
  external: ["vscode"],
  format: "cjs",
  platform: "node",
  target: "node20",
  sourcemap: true,
  minify: !watch,
  logLevel: "info",
};
const webview = {
  entryPoints: ["webview/callGraphView.ts"],
  bundle: true,
  outfile: "media/callGraphView.js",
  format: "iife",
  platform: "browser",
  target: "es2022",
  minify: !watch,
  logLevel: "info",
};
if (watch) {
  await (await esbuild.context(options)).watch();
  await (await esbuild.context(webview)).watch();
} else {
  await Promise.all([esbuild.build(options), esbuild.build(webview)]);
}
