/**
 * The call graph panel's HTML: a toolbar, a summary line and the graph area. The script
 * (media/callGraphView.js, bundled with Graphviz compiled to WebAssembly by @viz-js/viz) lays the DOT
 * out in the webview itself. Content-Security-Policy: nothing by default, the script only by its
 * nonce (`'wasm-unsafe-eval'` lets it compile the embedded WebAssembly), styles and images from the
 * extension's media folder (and data: URIs), no network. Pure: no `vscode` import, unit-tested.
 */

export interface HtmlParts {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

export function contentSecurityPolicy(p: Pick<HtmlParts, "cspSource" | "nonce">): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${p.nonce}' 'wasm-unsafe-eval'`,
    `style-src ${p.cspSource}`,
    `img-src ${p.cspSource} data:`,
    `font-src ${p.cspSource}`,
  ].join("; ");
}

const attr = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function panelHtml(p: HtmlParts): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(p))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(p.styleUri)}">
<title>gmonlens call graph</title>
</head>
<body>
<!-- The controls are enabled by the script once it runs (a click before would be lost). -->
<div id="toolbar">
  <label class="graph-only" title="Callers and callees shown around the routine (breadth first)">Depth
    <button id="depth-down" title="Less depth" disabled>−</button><span id="depth">2</span><button id="depth-up" title="More depth" disabled>+</button></label>
  <label class="graph-only" title="The whole program, pruned as gmonlens export --format dot prunes it"><input type="checkbox" id="whole" disabled> Whole program</label>
  <label class="graph-only" title="Pinned: the graph stays; unpinned: it follows the routine under the cursor"><input type="checkbox" id="pinned" disabled> Pinned</label>
  <button id="fit" class="graph-only" title="Fit the graph in the panel, or show it at its natural size" disabled>Natural size</button>
  <label title="gprof's call graph top down: each routine's frames add up to its total; hatched frames are estimates"><input type="checkbox" id="flame" disabled> Flame graph</label>
  <input type="search" id="search" class="flame-only" placeholder="Search routines" title="Highlight the frames of routines whose name contains this" disabled>
  <button id="unzoom" class="flame-only" title="Show the whole program again" disabled>Reset zoom</button>
</div>
<div id="summary" role="status"></div>
<div id="graph" tabindex="0"></div>
<div id="butterfly" class="flame-only" hidden></div>
<div id="flame-area" class="flame-only" hidden><div id="flame-frames"></div></div>
<script nonce="${attr(p.nonce)}" src="${attr(p.scriptUri)}"></script>
</body>
</html>
`;
}
