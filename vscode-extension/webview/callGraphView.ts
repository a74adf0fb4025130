// The call graph panel's script (runs in the webview; bundled by esbuild.mjs with @viz-js/viz into
// media/callGraphView.js, type-checked by tsconfig.webview.json). The extension sends the graph as
// DOT; Graphviz (WebAssembly) lays it out here, offline. Clicking a node asks the extension to open
// its source; the toolbar changes the depth, switches to the whole program and pins the graph. The
// messages both ways are src/panelMessages.ts's.
import { instance } from "@viz-js/viz";
import { ROW_PX, flameSummary, frameViews, layout, search } from "../src/flameGraph";
import type { FromWebview, NodeInfo, PanelState, ToWebview } from "../src/panelMessages";
import type { FlameGraph } from "../src/protocol";

interface WebviewApi {
  postMessage(message: FromWebview): void;
}
declare function acquireVsCodeApi(): WebviewApi;

const vscode = acquireVsCodeApi();

/** The element of the panel's HTML (callGraphHtml.ts) with this id. */
function $<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (el === null) {
    throw new Error(`the panel has no #${id}`);
  }
  return el as T;
}
const input = (id: string): HTMLInputElement => $<HTMLInputElement>(id);
const button = (id: string): HTMLButtonElement => $<HTMLButtonElement>(id);

const graphEl = $("graph");
const summaryEl = $("summary");
let state: PanelState & { fit: boolean } = { depth: 2, whole: false, pinned: false, fit: true, flame: false };
// The flame graph: the server's frames, the zoomed frame (-1: the whole program), the search text.
let flame: FlameGraph | null = null;
let zoom = -1;
let query = "";
// Until the user chooses with the button, a graph more than twice as wide as the panel (a big
// whole-program view) is shown at its natural size, scrolled to its centre routine or its top.
let fitChosen = false;
let nodes: Record<string, NodeInfo> = {};
const vizPromise = instance();

function applyState(): void {
  $("depth").textContent = String(state.depth);
  input("whole").checked = state.whole;
  input("pinned").checked = state.pinned;
  button("depth-down").disabled = state.whole || state.depth <= 0;
  button("depth-up").disabled = state.whole || state.depth >= 10;
  $("fit").textContent = state.fit ? "Natural size" : "Fit";
  input("whole").disabled = input("pinned").disabled = button("fit").disabled = false;
  input("flame").checked = state.flame;
  input("flame").disabled = input("search").disabled = button("unzoom").disabled = false;
  document.body.classList.toggle("flame-view", state.flame);
  $("flame-area").hidden = !state.flame;
  const svg = graphEl.querySelector("svg");
  if (svg) fitSvg(svg);
}

function fitSvg(svg: SVGSVGElement): void {
  if (state.fit) {
    svg.style.maxWidth = "100%";
    svg.style.height = "auto";
  } else {
    svg.style.maxWidth = "none";
    svg.style.height = "";
  }
}

function say(text: string): void {
  summaryEl.textContent = text;
}

function openNode(g: SVGGElement, info: NodeInfo, altKey: boolean): void {
  vscode.postMessage({ type: "open", node: g.id, centre: altKey || !info.hasSource });
}

async function render(msg: Extract<ToWebview, { type: "graph" }>): Promise<void> {
  const viz = await vizPromise;
  const started = performance.now();
  let svg: SVGSVGElement;
  try {
    svg = viz.renderSVGElement(msg.dot);
  } catch (e) {
    say(`Graphviz could not lay out the graph: ${e instanceof Error && e.message ? e.message : String(e)}`);
    return;
  }
  const ms = Math.round(performance.now() - started);
  nodes = msg.nodes;
  for (const g of svg.querySelectorAll<SVGGElement>("g.node")) {
    const info = nodes[g.id];
    if (!info) continue;
    const title = g.querySelector("title");
    if (title) title.textContent = info.tooltip;
    g.classList.add(info.hasSource ? "has-source" : "no-source");
    if (info.center) g.classList.add("center");
    if (info.source) g.dataset.source = info.source; // file name:line, for people and tests
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
    g.addEventListener("click", (ev) => {
      ev.preventDefault();
      openNode(g, info, ev.altKey);
    });
    g.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        openNode(g, info, ev.altKey);
      }
    });
  }
  for (const title of svg.querySelectorAll("g.edge > title, g.cluster > title")) {
    title.textContent = (title.textContent ?? "").replace(/\br(\d+)\b/g, (_m, id: string) => nodes[`r${id}`]?.name ?? id);
  }
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  const vb = svg.viewBox.baseVal;
  if (vb && vb.width) {
    svg.style.width = `${vb.width}px`;
  }
  if (!fitChosen) {
    state.fit = !(vb && vb.width > 2 * Math.max(graphEl.clientWidth, 200));
    applyState();
  }
  fitSvg(svg);
  graphEl.replaceChildren(svg);
  graphEl.dataset.renderMs = String(ms);
  graphEl.dataset.generation = String(msg.generation);
  say(`${msg.summary} · laid out in ${ms} ms`);
  const centre = svg.querySelector("g.node.center");
  if (centre && !state.fit) {
    centre.scrollIntoView({ block: "center", inline: "center" });
  } else if (!state.fit) {
    // The whole program: start at the routine with the most total time (main, usually, at the top).
    let hot: SVGGElement | undefined;
    for (const g of svg.querySelectorAll<SVGGElement>("g.node")) {
      if (!hot || (nodes[g.id]?.percent ?? 0) > (nodes[hot.id]?.percent ?? 0)) hot = g;
    }
    if (hot) hot.scrollIntoView({ block: "nearest", inline: "center" });
  }
}

// Draws the flame graph at the current zoom and search (frames narrower than a pixel are left out:
// their time is in their parent's width). Timing in #flame-area's data-render-ms.
function drawFlame(): void {
  if (!flame) return;
  const started = performance.now();
  const area = $("flame-area");
  const width = Math.max(area.clientWidth, 200);
  const placed = layout(flame, zoom, 1 / width);
  const hits = search(flame, query);
  const el = $("flame-frames");
  const divs = frameViews(flame, placed, hits).map((v) => {
    const d = document.createElement("div");
    d.className = v.className;
    d.dataset.frame = String(v.index);
    if (v.source) d.dataset.source = v.source;
    d.title = v.title;
    d.textContent = v.text;
    d.style.left = v.left;
    d.style.width = v.width;
    d.style.top = v.top;
    d.style.backgroundColor = v.colour;
    return d;
  });
  el.replaceChildren(...divs);
  const rows = placed.reduce((m, p) => Math.max(m, p.row + 1), 0);
  el.style.height = `${rows * ROW_PX}px`;
  const ms = Math.round(performance.now() - started);
  area.dataset.renderMs = String(ms);
  area.dataset.generation = String(flame.generation);
  area.dataset.zoom = String(zoom);
  const found = query ? ` · ${hits.size} frames match "${query}"` : "";
  say(`${flameSummary(flame, placed.length)}${found} · drawn in ${ms} ms`);
}

/** The element an event happened in or under that matches `selector`. */
function closest(ev: Event, selector: string): HTMLElement | null {
  return ev.target instanceof Element ? ev.target.closest<HTMLElement>(selector) : null;
}

$("flame-frames").addEventListener("click", (ev) => {
  const el = closest(ev, ".frame");
  if (!el || !flame) return;
  const i = Number(el.dataset.frame);
  ev.preventDefault();
  if (ev.ctrlKey || ev.metaKey) {
    vscode.postMessage({ type: "openFrame", frame: i });
  } else if (ev.altKey) {
    vscode.postMessage({ type: "butterfly", frame: i });
  } else {
    zoom = i === zoom ? flame.frames[i].parent : i;
    drawFlame();
  }
});

$("butterfly").addEventListener("click", (ev) => {
  const el = closest(ev, ".bf-row");
  if (el) vscode.postMessage({ type: "openButterfly", node: el.dataset.node ?? "" });
});

function onMessage(msg: ToWebview): void {
  switch (msg.type) {
    case "state":
      state = { ...state, ...msg.state };
      applyState();
      break;
    case "graph":
      void render(msg);
      break;
    case "flame": {
      const same = flame && flame.folder === msg.flame.folder;
      flame = msg.flame;
      if (!same || zoom >= flame.frames.length) zoom = -1;
      $("butterfly").hidden = true;
      drawFlame();
      break;
    }
    case "butterfly": {
      const bf = $("butterfly");
      bf.innerHTML = msg.html;
      for (const bar of bf.querySelectorAll<HTMLElement>(".bf-bar")) bar.style.width = `${bar.dataset.width}%`;
      bf.hidden = false;
      bf.dataset.routine = msg.name;
      break;
    }
    case "message":
      say(msg.text);
      if (msg.clear) graphEl.replaceChildren();
      break;
    default: {
      const never: never = msg;
      return never;
    }
  }
}

window.addEventListener("message", (event: MessageEvent<unknown>) => {
  const msg = event.data;
  // only the panel posts to this webview (panelMessages.ts): a message of another shape is none of ours
  if (!msg || typeof msg !== "object") return;
  onMessage(msg as ToWebview);
});

button("depth-down").addEventListener("click", () => vscode.postMessage({ type: "depth", depth: state.depth - 1 }));
button("depth-up").addEventListener("click", () => vscode.postMessage({ type: "depth", depth: state.depth + 1 }));
input("whole").addEventListener("change", () => vscode.postMessage({ type: "whole", whole: input("whole").checked }));
input("pinned").addEventListener("change", () => vscode.postMessage({ type: "pinned", pinned: input("pinned").checked }));
input("flame").addEventListener("change", () => vscode.postMessage({ type: "flameView", flame: input("flame").checked }));
input("search").addEventListener("input", () => {
  query = input("search").value;
  drawFlame();
});
button("unzoom").addEventListener("click", () => {
  zoom = -1;
  $("butterfly").hidden = true;
  drawFlame();
});
window.addEventListener("resize", () => {
  if (state.flame) drawFlame();
});
button("fit").addEventListener("click", () => {
  fitChosen = true;
  state.fit = !state.fit;
  applyState();
});
applyState();
vscode.postMessage({ type: "ready" });
