// Bundles src/extension.ts and vscode-languageclient into dist/extension.js (CommonJS, node).
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
if (watch) {
  await (await esbuild.context(options)).watch();
} else {
  await esbuild.build(options);
}
