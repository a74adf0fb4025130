// Reads `gprof -b` text (the oracle) and compares a lens title with it.

/**
 * A routine's figures by name, for a test that looks up routines it knows by name. A name is not a
 * routine's identity (two files' `static` routines, a C++ destructor's D0/D1 symbols share one), and
 * gprof's flat profile has no index to tell them apart: looking up a name that several routines have
 * throws, instead of answering with one of them picked by chance (issue 32).
 */
export class ByName extends Map {
  constructor() {
    super();
    /** @type {Set<string>} names gprof prints for more than one routine */
    this.shared = new Set();
  }

  get(name) {
    if (this.shared.has(name)) throw new Error(`gprof has several routines named ${name}: not a key`);
    return super.get(name);
  }
}

/**
 * @returns {{totalSeconds: number, hottest: string,
 *   routines: ByName, // name -> {flatPercent: number, self: string, calls: string, graphPercent?: number, total?: string}
 *   callers: ByName}} // name -> {name: string, called: string}[]
 */
export function parseGprof(text) {
  const routines = new ByName();
  const callers = new ByName();
  const flatNames = new Set();
  const graphIndex = new Map(); // name -> the index [N] of its call-graph entry
  let totalSeconds = 0;
  let hottest = "";
  const lines = text.split("\n");
  let i = lines.findIndex((l) => /^\s*time\s+seconds\s+seconds/.test(l));
  for (i += 1; i > 0 && i < lines.length; i++) {
    // %time cumulative self [calls self/call total/call] name
    const m = /^\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(?:(\d+)\s+[\d.]+\s+[\d.]+\s+)?(\S.*)$/.exec(lines[i]);
    if (!m) break;
    const name = m[5].trim();
    if (!hottest) hottest = name;
    totalSeconds = Math.max(totalSeconds, Number(m[2]));
    if (flatNames.has(name)) markShared(name, routines, callers);
    flatNames.add(name);
    routines.set(name, { flatPercent: Number(m[1]), self: m[3], calls: m[4] ?? "" });
  }
  // Call graph blocks separated by dashes; the primary line starts with [index].
  const start = lines.findIndex((l) => /^index\s+% time/.test(l));
  let block = [];
  for (const line of start >= 0 ? lines.slice(start + 1) : []) {
    if (/^-{10,}/.test(line) || /^Index by function name/.test(line)) {
      readBlock(block, routines, callers, graphIndex);
      block = [];
      if (/^Index/.test(line)) break;
    } else if (line.trim() !== "") {
      block.push(line);
    }
  }
  return { totalSeconds, hottest, routines, callers };
}

function markShared(name, routines, callers) {
  routines.shared.add(name);
  callers.shared.add(name);
}

function readBlock(block, routines, callers, graphIndex) {
  const p = block.findIndex((l) => /^\[\d+\]/.test(l));
  if (p < 0) return;
  // [N] %time self children [called] name [N]
  const m = /^\[(\d+)\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(?:([\d+]+)\s+)?(\S+)/.exec(block[p]);
  if (!m) return;
  const [, index, percent, self, children, called, name] = m;
  if (graphIndex.has(name) && graphIndex.get(name) !== index) markShared(name, routines, callers);
  graphIndex.set(name, index);
  if (routines.shared.has(name)) return; // which routine of that name has these figures is not told
  const r = Map.prototype.get.call(routines, name) ?? { flatPercent: 0, self, calls: called ?? "" };
  r.graphPercent = Number(percent);
  r.total = (Number(self) + Number(children)).toFixed(2);
  if (called) r.calls = called;
  routines.set(name, r);
  const list = [];
  for (const line of block.slice(0, p)) {
    // self children called name [N]
    const c = /^\s+[\d.]+\s+[\d.]+\s+(\d+(?:\+\d+)?)\/\d+\s+(\S+)/.exec(line);
    if (c) list.push({ called: c[1], name: c[2] });
  }
  callers.set(name, list);
}

/** The figures in a lens title like "42.0% · self 0.31 s · total 0.37 s · 120 calls". */
export function parseLens(text) {
  const t = text.replace(/\u00a0/g, " ");
  const m = /([\d.]+)\s*%.*?self\s+([\d.]+)\s*s.*?total\s+([\d.]+)\s*s(?:.*?(\d+(?:\+\d+)?)\s+calls?)?/.exec(t);
  return m ? { percent: Number(m[1]), self: m[2], total: m[3], calls: m[4] ?? "" } : undefined;
}

/** undefined when the lens agrees with gprof, else what differs (one line). */
export function expectedLens(text, want, totalSeconds) {
  const got = parseLens(text);
  if (!got) return `cannot read "${text}"`;
  const diffs = [];
  if (got.self !== want.self) diffs.push(`self ${got.self} != gprof ${want.self}`);
  if (want.total !== undefined && Math.abs(Number(got.total) - Number(want.total)) > 0.0101) {
    diffs.push(`total ${got.total} != gprof ${want.total}`);
  }
  if (want.calls && got.calls !== want.calls) diffs.push(`calls ${got.calls} != gprof ${want.calls}`);
  const close = (a, b) => b !== undefined && Math.abs(a - b) <= 0.051;
  const fromTotal = totalSeconds > 0 ? (100 * Number(got.self)) / totalSeconds : undefined;
  if (!close(got.percent, want.flatPercent) && !close(got.percent, want.graphPercent) && !close(got.percent, fromTotal)) {
    diffs.push(`percent ${got.percent} is neither gprof's ${want.flatPercent} (flat) nor ${want.graphPercent} (call graph)`);
  }
  return diffs.length ? `${diffs.join("; ")} in "${text}"` : undefined;
}
