/**
 * gmonlens's own messages on the wire, the extension's one statement of them (the server's is
 * server/gmonlens_lsp/payloads.py, the prose PROTOCOL.md): every custom notification, request and
 * command with its params/arguments and result, the settings, as schemas (`wire`: exact JSON
 * shapes, checked by test/unit/protocol.test.ts against the server's real messages in
 * protocol/examples/); the readers that turn an answer into what the views use (lenient: a
 * malformed entry is dropped, a missing figure is 0, as before; seconds stay null where the
 * profile has no sampling rate, which the views show as units.ts's NO_TIME); and the builders of
 * what the extension sends. Pure: no `vscode` import.
 */

import {
  type Infer,
  type Schema,
  arr,
  bool,
  int,
  lit,
  nul,
  nullable,
  num,
  obj,
  optional,
  record,
  str,
  tuple,
  union,
} from "./schema";

// ---- the wire: what goes over it, exactly ----------------------------------------------------

const uri = str;
/** Seconds (of gprof's figures): null without a sampling rate. */
const seconds = nullable(num);
const TextDocument = obj({ uri });
const Position = obj({ line: int, character: int });
const FolderArguments = union(tuple(), tuple(str)); // `[folderUri?]`
/** A lens's command arguments: document URI, the routine's name position, its raw name. */
const LensArguments = tuple(uri, Position, str);

const BaselineStatus = obj({
  label: str,
  totalBefore: num,
  totalAfter: num,
  deltaSeconds: seconds,
  percent: nullable(num),
  verdict: lit("up", "down", "noise"),
  regressions: int,
  improvements: int,
});
const HealthEntry = obj({ code: str, message: str, fix: str });
const Status = obj({
  state: lit("loading", "loaded", "problem", "idle"),
  message: str,
  totalSeconds: seconds,
  routines: int,
  folder: str,
  baseline: nullable(BaselineStatus),
  health: arr(HealthEntry),
});

const HeatLine = obj({
  line: int,
  seconds,
  percent: num,
  routine: str,
  routines: arr(obj({ name: str, seconds })),
  samples: num,
  errSeconds: seconds,
});
const LineHeat = obj({ uri, totalSeconds: seconds, lines: arr(HeatLine) });

const Thresholds = { nodeThreshold: optional(num), edgeThreshold: optional(num) };
const CallGraphParams = union(
  obj({ textDocument: TextDocument, position: Position, depth: optional(int), maxNodes: optional(int), ...Thresholds }),
  obj({ folder: str, routine: int, generation: int, name: optional(str), depth: optional(int), maxNodes: optional(int), ...Thresholds }),
  obj({ whole: lit(true), folder: optional(str), ...Thresholds }),
);
const GraphNode = obj({
  id: int,
  name: str,
  displayName: str,
  selfSeconds: seconds,
  totalSeconds: seconds,
  percent: num,
  selfPercent: num,
  calls: int,
  recursiveCalls: int,
  cycle: nullable(int),
  uri: nullable(uri),
  line: nullable(int),
});
const GraphEdge = obj({
  caller: int,
  callee: int,
  calls: int,
  seconds,
  percent: num,
  inCycle: bool,
  estimated: nullable(bool),
});
const GraphCycle = obj({
  number: int,
  members: arr(int),
  allMembers: arr(int),
  selfSeconds: seconds,
  totalSeconds: seconds,
  percent: num,
  calls: int,
  internalCalls: int,
});
const CallGraphResult = obj({
  folder: str,
  generation: int,
  center: nullable(int),
  depth: nullable(int),
  nodeThreshold: num,
  edgeThreshold: num,
  totalSeconds: seconds,
  prunedNodes: int,
  prunedEdges: int,
  nodes: arr(GraphNode),
  edges: arr(GraphEdge),
  cycles: arr(GraphCycle),
  certaintyPending: bool,
});

const FlameGraphParams = obj({ folder: optional(str), minPercent: optional(num) });
const FlameFrame = obj({
  parent: int,
  routine: nullable(int),
  cycle: nullable(int),
  name: str,
  seconds,
  selfSeconds: seconds,
  estimated: bool,
  depth: int,
  uri: nullable(uri),
  line: nullable(int),
  /** A member's frame inside its cycle's (the cycle's number); its width is gprof's estimate. */
  cycleMember: optional(int),
});
const FlameGraphResult = obj({
  folder: str,
  generation: int,
  totalSeconds: seconds,
  minPercent: num,
  truncated: bool,
  frames: arr(FlameFrame),
});

const Syntax = { syntax: optional(lit("att", "intel")), compact: optional(bool) };
const DisassemblyParams = union(
  obj({ textDocument: TextDocument, position: Position, symbol: optional(str), ...Syntax }),
  obj({ uri: str, ...Syntax }),
  obj({ name: str, folder: optional(str), ...Syntax }),
);
const DisasmCall = obj({ callee: str, count: int, seconds, path: nullable(str), sourceLine: nullable(int) });
const DisasmInstruction = obj({
  line: int,
  address: int,
  samples: num,
  seconds,
  percent: num,
  file: nullable(str),
  path: nullable(str),
  sourceLine: int,
  calls: arr(DisasmCall),
});
const DisasmSource = obj({ line: int, file: str, path: nullable(str), sourceLine: int });
const Disassembly = obj({
  uri: str,
  folder: str,
  generation: int,
  routine: int,
  name: str,
  displayName: str,
  selfSeconds: seconds,
  totalSeconds: seconds,
  text: str,
  instructions: arr(DisasmInstruction),
  sources: arr(DisasmSource),
});
const DisasmError = obj({ error: str });

const Hottest = obj({
  name: str,
  selfSeconds: seconds,
  totalSeconds: seconds,
  percent: num,
  calls: str,
  uri: nullable(uri),
  line: nullable(int),
});
const Caller = obj({
  name: str,
  calls: int,
  selfSeconds: seconds,
  childrenSeconds: seconds,
  uri: nullable(uri),
  line: nullable(int),
  callSites: arr(obj({ uri, line: int })),
});
const Pinned = obj({ folder: str, binary: str, profiles: arr(str) });
const TestEntry = obj({ name: str, status: nullable(str), duration: nullable(num), seconds, binary: nullable(str) });
const TestsList = obj({
  folder: str,
  suite: nullable(str),
  mode: lit("auto", "suite", "test"),
  selected: nullable(str),
  tests: arr(TestEntry),
  problem: nullable(str),
});
/** `gmonlens.selectTest`'s arguments: one test (`{test: name}`), the whole suite (`{test: null}`),
 * or the server's own choice again (null). */
const SelectTestArguments = tuple(str, nullable(obj({ test: nullable(str) })));
const ChangeEntry = obj({
  name: str,
  kind: lit("regression", "improvement", "new", "gone"),
  status: lit("matched", "renamed", "new", "gone"),
  change: str,
  selfBefore: nullable(num),
  selfAfter: nullable(num),
  selfDelta: num,
  selfPercent: nullable(num),
  selfZ: num,
  totalBefore: nullable(num),
  totalAfter: nullable(num),
  totalDelta: num,
  totalPercent: nullable(num),
  totalZ: num,
  callsBefore: nullable(int),
  callsAfter: nullable(int),
  uri: nullable(uri),
  line: nullable(int),
  folder: str,
});

// gmonlens/record: its params (camelCase, as the other requests'), its answer the recording, schema
// gmonlens-record/1, as `gmonlens record --json` prints it and DIR/record.json holds it (snake_case)
const RecordOptions = obj({
  runs: optional(int),
  precision: optional(num),
  onSignalExit: optional(bool),
  arcs: optional(union(int, lit("auto", "default"))),
  binaries: optional(arr(str)),
  preload: optional(bool),
  env: optional(record(str)),
});
const RecordParams = obj({
  folder: optional(str),
  argv: arr(str),
  cwd: optional(str),
  options: optional(RecordOptions),
  workDoneToken: optional(union(str, int)),
});
const RecordFinding = obj({ code: str, severity: lit("error", "warning", "note"), message: str, fix: str, rerun: arr(str) });
const RecordTopRoutine = obj({
  name: str,
  self_seconds: seconds,
  self_percent: num,
  samples: num,
  error_percent: nullable(num),
  calls: int,
  file: nullable(str),
  line: nullable(int),
});
const RecordBinary = obj({
  binary: str,
  profiles: arr(str),
  pids: arr(int),
  samples: num,
  hz: int,
  seconds,
  calls: int,
  top: arr(RecordTopRoutine),
  warnings: arr(str),
  problem: nullable(str),
  report: arr(str),
});
const RecordProfile = obj({
  path: str,
  pid: int,
  run: int,
  binary: nullable(str),
  fit: nullable(lit("exact", "loose")),
  found_by: nullable(str),
  samples: num,
  arcs: int,
  hz: int,
  problem: nullable(str),
});
const RecordRun = obj({
  run: int,
  pid: int,
  exit_code: nullable(int),
  signal: nullable(str),
  status: int,
  user_seconds: num,
  system_seconds: num,
  cpu_seconds: num,
  wall_seconds: num,
  glibc_messages: arr(str),
  interrupted: nullable(str),
  orphans_reaped: int,
  orphans_left: bool,
});
const RecordPreflight = obj({
  binary: str,
  profiling_calls: arr(str),
  startup_linked: bool,
  static: bool,
  units: int,
  units_without_pg: arr(obj({ name: str, comp_dir: str, producer: str })),
  units_unknown: int,
  producers_problem: nullable(str),
  arcs: obj({ glibc_limit: int, direct_call_sites: nullable(int), indirect_call_sites: nullable(int), requested: nullable(int) }),
});
const Recording = obj({
  schema: lit("gmonlens-record/1"),
  command: obj({ argv: arr(str), cwd: str, path: str, kind: str, interpreter: arr(str), profiled_binaries: arr(str) }),
  out_dir: str,
  exit_status: int,
  command_status: int,
  usable: bool,
  preflight: nullable(RecordPreflight),
  helper: obj({ used: bool, path: nullable(str), compiler: arr(str), problem: nullable(str) }),
  runs: arr(RecordRun),
  cpu_seconds: num,
  profiles: arr(RecordProfile),
  left_alone: arr(str),
  binaries: arr(RecordBinary),
  processes: arr(
    obj({
      pid: int,
      ppid: int,
      programs: arr(str),
      exited: bool,
      signal: nullable(str),
      cpu_seconds: nullable(num),
      arcs_buffer: nullable(arr(int)),
    }),
  ),
  precision: obj({
    target_percent: nullable(num),
    max_runs: int,
    runs: int,
    binary: nullable(str),
    achieved_percent: nullable(num),
    met: bool,
    history: arr(obj({ run: int, error_percent: nullable(num), samples: num })),
  }),
  diagnosis: arr(RecordFinding),
});

/** The `gmonlens` settings section (initializationOptions, workspace/configuration's answer). */
const Settings = obj({
  binary: optional(str),
  profiles: optional(arr(str)),
  staticCallGraph: optional(bool),
  clones: optional(lit("gprof", "apart")),
  sourceMap: optional(record(str)),
  lensTitle: optional(str),
  baseline: optional(union(str, arr(str), obj({ profiles: arr(str), binary: optional(str) }))),
  pinFolder: optional(str),
  lineHeatLabel: optional(str),
  lineHeatMinPercent: optional(num),
  budgets: optional(str),
  trustedWorkspace: optional(bool),
});

/** Every shape, by name; `Wire<"LineHeat">` is its TypeScript type. */
export const wire = {
  Position, LensArguments, FolderArguments, Settings, Status, BaselineStatus, HealthEntry,
  HeatLine, LineHeat, CallGraphParams, GraphNode, GraphEdge, GraphCycle, CallGraphResult,
  FlameGraphParams, FlameFrame, FlameGraphResult, DisassemblyParams, DisasmCall, DisasmInstruction,
  DisasmSource, Disassembly, DisasmError, Hottest, Caller, Pinned, ChangeEntry, TestEntry, TestsList,
  SelectTestArguments, RecordOptions, RecordParams, RecordFinding, RecordBinary, Recording,
  ItemData: obj({ routine: int, generation: int, name: str }),
} as const;
export type Wire<K extends keyof typeof wire> = Infer<(typeof wire)[K]>;

export const STATUS = "gmonlens/status";
export const LINE_HEAT = "gmonlens/lineHeat";
export const CALL_GRAPH = "gmonlens/callGraph";
export const FLAME_GRAPH = "gmonlens/flameGraph";
export const DISASSEMBLY = "gmonlens/disassembly";
export const RECORD = "gmonlens/record";

/** The commands the server runs (workspace/executeCommand); vscode-languageclient registers them
 * in VS Code under these names, so no command of the extension may share one. */
export const SERVER_COMMANDS = {
  reload: "gmonlens.reload",
  report: "gmonlens.report",
  hottest: "gmonlens.hottest",
  showCallers: "gmonlens.showCallers",
  showDisassembly: "gmonlens.showDisassembly",
  pinBaseline: "gmonlens.pinBaseline",
  clearBaseline: "gmonlens.clearBaseline",
  changes: "gmonlens.changes",
  tests: "gmonlens.tests",
  selectTest: "gmonlens.selectTest",
} as const;

interface Parts {
  params?: Schema<unknown>;
  result?: Schema<unknown>;
  arguments?: Schema<unknown>;
  data?: Schema<unknown>;
  initializationOptions?: Schema<unknown>;
}

/**
 * Every message of the contract and the shape of each of its parts, named as protocol/README.md
 * names the example files (`gmonlens.lineHeat` for the method `gmonlens/lineHeat`,
 * `command.gmonlens.hottest` for a command). A request's result may also be null (no profile).
 */
export const MESSAGES: Record<string, Parts> = {
  initialize: { initializationOptions: Settings },
  [STATUS]: { params: Status },
  [LINE_HEAT]: { params: obj({ textDocument: TextDocument }), result: nullable(LineHeat) },
  [CALL_GRAPH]: { params: CallGraphParams, result: nullable(CallGraphResult) },
  [FLAME_GRAPH]: { params: FlameGraphParams, result: nullable(FlameGraphResult) },
  [DISASSEMBLY]: { params: DisassemblyParams, result: nullable(union(Disassembly, DisasmError)) },
  [RECORD]: { params: RecordParams, result: Recording },
  callHierarchyItem: { data: wire.ItemData },
  [`command.${SERVER_COMMANDS.reload}`]: { arguments: FolderArguments, result: nul },
  [`command.${SERVER_COMMANDS.report}`]: { arguments: FolderArguments, result: nullable(str) },
  [`command.${SERVER_COMMANDS.hottest}`]: { arguments: tuple(lit("self", "total"), int), result: arr(Hottest) },
  [`command.${SERVER_COMMANDS.showCallers}`]: { arguments: LensArguments, result: arr(Caller) },
  [`command.${SERVER_COMMANDS.showDisassembly}`]: {
    arguments: LensArguments,
    result: nullable(union(Disassembly, DisasmError)),
  },
  [`command.${SERVER_COMMANDS.pinBaseline}`]: { arguments: FolderArguments, result: arr(Pinned) },
  [`command.${SERVER_COMMANDS.clearBaseline}`]: { arguments: FolderArguments, result: nul },
  [`command.${SERVER_COMMANDS.changes}`]: { arguments: FolderArguments, result: arr(ChangeEntry) },
  [`command.${SERVER_COMMANDS.tests}`]: { arguments: FolderArguments, result: arr(TestsList) },
  [`command.${SERVER_COMMANDS.selectTest}`]: { arguments: SelectTestArguments, result: nullable(TestsList) },
};

// ---- what the extension sends -----------------------------------------------------------------

export type LinePosition = Wire<"Position">;

export function lineHeatParams(documentUri: string): { textDocument: { uri: string } } {
  return { textDocument: { uri: documentUri } };
}

/** What the call graph panel shows: around the routine under a cursor, around a routine of an
 * earlier answer (kept by id within its generation, else found by raw name), or the whole program. */
export type GraphTarget =
  | { kind: "cursor"; uri: string; position: LinePosition }
  | { kind: "routine"; folder: string; routine: number; generation: number; name?: string }
  | { kind: "whole"; folder: string | undefined };

export function callGraphParams(target: GraphTarget, depth: number): Wire<"CallGraphParams"> {
  switch (target.kind) {
    case "cursor":
      return { textDocument: { uri: target.uri }, position: target.position, depth };
    case "routine": {
      const { folder, routine, generation, name } = target;
      return name === undefined ? { folder, routine, generation, depth } : { folder, routine, generation, name, depth };
    }
    case "whole":
      return target.folder ? { whole: true, folder: target.folder } : { whole: true };
  }
}

export function flameGraphParams(folder: string | undefined): Wire<"FlameGraphParams"> {
  return folder ? { folder } : {};
}

/** The listing of the routine at a position (`symbol`: a lens's raw name, one of several on the
 * line), compact (the figures are inlay hints and gutter heat in VS Code); or a listing document's. */
export function disassemblyParams(
  at: { uri: string; position: LinePosition; symbol?: string } | { listing: string },
): Wire<"DisassemblyParams"> {
  if ("listing" in at) {
    return { uri: at.listing };
  }
  const params: Wire<"DisassemblyParams"> = { textDocument: { uri: at.uri }, position: at.position, compact: true };
  return at.symbol === undefined ? params : { ...params, symbol: at.symbol };
}

/** `[folderUri?]`: the commands that act on one folder (all, without one). */
export function folderArguments(folder: string | undefined): Wire<"FolderArguments"> {
  return folder === undefined ? [] : [folder];
}

/** What a folder with a `gmonlens test` folder shows: the server's own choice, the whole suite,
 * or one test. */
export type TestChoice = { kind: "auto" } | { kind: "suite" } | { kind: "test"; name: string };

export function selectTestArguments(folder: string, choice: TestChoice): Wire<"SelectTestArguments"> {
  switch (choice.kind) {
    case "auto":
      return [folder, null];
    case "suite":
      return [folder, { test: null }];
    case "test":
      return [folder, { test: choice.name }];
  }
}

export type HottestBy = "self" | "total";

export function hottestArguments(by: HottestBy, limit: number): [HottestBy, number] {
  return [by, limit];
}

// ---- what the views read: the readers ---------------------------------------------------------

/** A wire object's keys, values unchecked: a reader may read only keys the wire has. */
type Loose<T> = { [K in keyof T]?: unknown };
/** A wire type whose figures `K` (seconds) the views read: a number, or null where the profile has
 * no sampling rate (seconds cannot be computed: the views say units.ts's NO_TIME, never 0). */
type Figures<T, K extends keyof T> = Omit<T, K> & { [P in K]: number | null };

const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === "string";
const isRec = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
/** A figure in seconds: a number, null for null (no sampling rate), undefined for anything else
 * (malformed). */
const figure = (v: unknown): number | null | undefined => (isNum(v) ? v : v === null ? null : undefined);
/** A figure in seconds, `d` where it is malformed or missing (null stays null: no sampling rate). */
function figureOr(v: unknown, d: number): number | null {
  const f = figure(v);
  return f === undefined ? d : f;
}

// gmonlens/status

export type StatusState = Wire<"Status">["state"];

/** The server's `gmonlens/status` params (seconds are gprof's total time of the profile; null
 * without a sampling rate, undefined when the server did not say). */
export interface ServerStatus {
  state: StatusState;
  message?: string;
  totalSeconds?: number | null;
  routines?: number;
  /** The workspace folder's URI this status belongs to. */
  folder?: string;
  /** The comparison with the folder's baseline, when it has one. */
  baseline?: BaselineStatus;
  /** What makes the whole profile less trustworthy, each with its fix (empty when healthy). */
  health?: HealthItem[];
}

/** One item of `health` in `gmonlens/status`. */
export type HealthItem = Wire<"HealthEntry">;

/** `baseline` of `gmonlens/status`: gprof's total time against the baseline's. */
export interface BaselineStatus {
  label: string;
  totalBefore: number;
  totalAfter: number;
  deltaSeconds: number;
  /** undefined when the baseline's total is 0 */
  percent?: number;
  verdict: Wire<"BaselineStatus">["verdict"];
  regressions: number;
  improvements: number;
}

function parseHealth(v: unknown): HealthItem[] {
  if (!Array.isArray(v)) {
    return [];
  }
  const out: HealthItem[] = [];
  for (const h of v.slice(0, 20)) {
    if (isRec(h)) {
      const r = h as Loose<HealthItem>;
      if (isStr(r.code) && isStr(r.message) && isStr(r.fix)) {
        out.push({ code: r.code, message: r.message, fix: r.fix });
      }
    }
  }
  return out;
}

function parseBaseline(v: unknown): BaselineStatus | undefined {
  if (!isRec(v)) {
    return undefined;
  }
  const b = v as Loose<Wire<"BaselineStatus">>;
  const num = (x: unknown) => (isNum(x) ? x : undefined);
  const verdict = b.verdict === "up" || b.verdict === "down" || b.verdict === "noise" ? b.verdict : undefined;
  const before = num(b.totalBefore);
  const after = num(b.totalAfter);
  if (verdict === undefined || before === undefined || after === undefined) {
    return undefined;
  }
  return {
    label: isStr(b.label) ? b.label : "baseline",
    totalBefore: before,
    totalAfter: after,
    deltaSeconds: num(b.deltaSeconds) ?? after - before,
    percent: num(b.percent),
    verdict,
    regressions: num(b.regressions) ?? 0,
    improvements: num(b.improvements) ?? 0,
  };
}

const STATES: readonly StatusState[] = ["loading", "loaded", "problem", "idle"];

/** Validates a notification's params; undefined when they are not a status. */
export function parseStatus(params: unknown): ServerStatus | undefined {
  if (!isRec(params)) {
    return undefined;
  }
  const p = params as Loose<Wire<"Status">>;
  if (!isStr(p.state) || !STATES.includes(p.state as StatusState)) {
    return undefined;
  }
  const num = (v: unknown) => (isNum(v) ? v : undefined);
  const str = (v: unknown) => (isStr(v) ? v : undefined);
  const baseline = parseBaseline(p.baseline);
  const health = parseHealth(p.health);
  return {
    state: p.state as StatusState,
    message: str(p.message),
    totalSeconds: p.totalSeconds === null ? null : num(p.totalSeconds),
    routines: num(p.routines),
    folder: str(p.folder),
    ...(baseline === undefined ? {} : { baseline }),
    ...(health.length === 0 ? {} : { health }),
  };
}

// gmonlens/lineHeat

/** One line's figures (line 0-based; percent of the profile's total time; seconds null without a
 * sampling rate). */
export interface HeatLine {
  line: number;
  seconds: number | null;
  percent: number;
  routine: string;
  routines: { name: string; seconds: number | null }[];
  /** the line's samples and one standard error in seconds (servers before 0.2 leave them out) */
  samples?: number;
  errSeconds?: number | null;
}

export interface FileHeat {
  uri: string;
  totalSeconds: number | null;
  lines: HeatLine[];
}

/** Validates the request's result; undefined when it is not line heat (null: no profile). */
export function parseLineHeat(result: unknown): FileHeat | undefined {
  if (!isRec(result)) {
    return undefined;
  }
  const r = result as Loose<Wire<"LineHeat">>;
  if (!isStr(r.uri) || !Array.isArray(r.lines)) {
    return undefined;
  }
  const lines: HeatLine[] = [];
  for (const item of r.lines) {
    if (!isRec(item)) {
      continue;
    }
    const l = item as Loose<Wire<"HeatLine">>;
    const seconds = figure(l.seconds);
    if (!isNum(l.line) || l.line < 0 || seconds === undefined || !isNum(l.percent)) {
      continue;
    }
    const routines = Array.isArray(l.routines)
      ? l.routines
          .filter((p): p is { name: string; seconds: number | null } => isRec(p) && isStr(p.name) && figure(p.seconds) !== undefined)
          .map((p) => ({ name: p.name, seconds: p.seconds }))
      : [];
    const err = figure(l.errSeconds);
    const sure = isNum(l.samples) && err !== undefined ? { samples: l.samples, errSeconds: err } : {};
    lines.push({ line: Math.floor(l.line), seconds, percent: l.percent, routine: isStr(l.routine) ? l.routine : "", routines, ...sure });
  }
  return { uri: r.uri, totalSeconds: figureOr(r.totalSeconds, 0), lines };
}

// gmonlens/callGraph

export type GraphNode = Figures<Wire<"GraphNode">, "selfSeconds" | "totalSeconds">;

export interface GraphEdge extends Omit<Figures<Wire<"GraphEdge">, "seconds">, "estimated"> {
  /** the edge's seconds are gprof's split of a callee with several callers (false: exact); absent
   * when the server did not say (null while its certainty figures compute: `certaintyPending`) */
  estimated?: boolean;
}

export interface CallGraph extends Omit<Figures<Wire<"CallGraphResult">, "totalSeconds">, "nodes" | "edges" | "cycles"> {
  nodes: GraphNode[];
  edges: GraphEdge[];
  cycles: Pick<Wire<"GraphCycle">, "number" | "members">[];
  /** the server has not computed which edges are estimates yet: none is marked; ask again later */
  certaintyPending: boolean;
}

const numOr = (v: unknown, d: number): number => (isNum(v) ? v : d);
const intOrNull = (v: unknown): number | null => (isNum(v) ? v : null);
const strOrNull = (v: unknown): string | null => (isStr(v) ? v : null);

function parseNode(n: unknown): GraphNode | undefined {
  if (!isRec(n)) {
    return undefined;
  }
  const r = n as Loose<GraphNode>;
  if (!isNum(r.id) || !isStr(r.name)) {
    return undefined;
  }
  return {
    id: r.id,
    name: r.name,
    displayName: isStr(r.displayName) ? r.displayName : r.name,
    selfSeconds: figureOr(r.selfSeconds, 0),
    totalSeconds: figureOr(r.totalSeconds, 0),
    percent: numOr(r.percent, 0),
    selfPercent: numOr(r.selfPercent, 0),
    calls: numOr(r.calls, 0),
    recursiveCalls: numOr(r.recursiveCalls, 0),
    cycle: intOrNull(r.cycle) || null,
    uri: strOrNull(r.uri),
    line: intOrNull(r.line),
  };
}

/** The server's answer, shape-checked: undefined for null or anything not a graph. */
export function parseCallGraph(raw: unknown): CallGraph | undefined {
  if (!isRec(raw)) {
    return undefined;
  }
  const r = raw as Loose<Wire<"CallGraphResult">>;
  if (!Array.isArray(r.nodes) || !Array.isArray(r.edges)) {
    return undefined;
  }
  const nodes: GraphNode[] = [];
  for (const n of r.nodes) {
    const node = parseNode(n);
    if (!node) {
      return undefined;
    }
    nodes.push(node);
  }
  const ids = new Set(nodes.map((n) => n.id));
  const edges: GraphEdge[] = [];
  for (const item of r.edges) {
    const e = (isRec(item) ? item : undefined) as Loose<Wire<"GraphEdge">> | undefined;
    if (!e || !isNum(e.caller) || !isNum(e.callee)) {
      return undefined;
    }
    if (!ids.has(e.caller) || !ids.has(e.callee)) {
      continue;
    }
    edges.push({
      caller: e.caller,
      callee: e.callee,
      calls: numOr(e.calls, 0),
      seconds: figureOr(e.seconds, 0),
      percent: numOr(e.percent, 0),
      inCycle: e.inCycle === true,
      ...(typeof e.estimated === "boolean" ? { estimated: e.estimated } : {}),
    });
  }
  const cycles = Array.isArray(r.cycles)
    ? (r.cycles as Loose<Wire<"GraphCycle">>[])
        .filter((c) => isRec(c) && isNum(c.number) && Array.isArray(c.members))
        .map((c) => ({ number: c.number as number, members: (c.members as unknown[]).filter(isNum) }))
    : [];
  return {
    folder: isStr(r.folder) ? r.folder : "",
    generation: numOr(r.generation, 0),
    center: intOrNull(r.center),
    depth: intOrNull(r.depth),
    nodeThreshold: numOr(r.nodeThreshold, 0),
    edgeThreshold: numOr(r.edgeThreshold, 0),
    totalSeconds: figureOr(r.totalSeconds, 0),
    prunedNodes: numOr(r.prunedNodes, 0),
    prunedEdges: numOr(r.prunedEdges, 0),
    nodes,
    edges,
    cycles,
    certaintyPending: r.certaintyPending === true,
  };
}

// gmonlens/flameGraph

export type FlameFrame = Figures<Wire<"FlameFrame">, "seconds" | "selfSeconds">;
export interface FlameGraph extends Omit<Figures<Wire<"FlameGraphResult">, "totalSeconds">, "frames"> {
  frames: FlameFrame[];
}

/** The server's answer, shape-checked: undefined for null or anything not a flame graph. Frames must
 * come parents first (a frame's parent index below its own); `depth` is counted here. */
export function parseFlameGraph(raw: unknown): FlameGraph | undefined {
  if (!isRec(raw)) {
    return undefined;
  }
  const r = raw as Loose<Wire<"FlameGraphResult">>;
  if (!Array.isArray(r.frames)) {
    return undefined;
  }
  const frames: FlameFrame[] = [];
  for (const [i, item] of r.frames.entries()) {
    const f = (isRec(item) ? item : undefined) as Loose<FlameFrame> | undefined;
    const width = f ? figure(f.seconds) : undefined;
    if (!f || !isNum(f.parent) || f.parent >= i || width === undefined) {
      return undefined;
    }
    const depth = f.parent < 0 ? 0 : frames[f.parent].depth + 1;
    frames.push({
      parent: f.parent < 0 ? -1 : f.parent,
      routine: isNum(f.routine) ? f.routine : null,
      cycle: isNum(f.cycle) ? f.cycle : null,
      name: isStr(f.name) ? f.name : "?",
      seconds: width === null ? null : Math.max(width, 0),
      selfSeconds: isNum(f.selfSeconds) ? Math.max(f.selfSeconds, 0) : f.selfSeconds === null ? null : 0,
      estimated: f.estimated === true,
      depth,
      uri: isStr(f.uri) ? f.uri : null,
      line: isNum(f.line) ? f.line : null,
      ...(isNum(f.cycleMember) ? { cycleMember: f.cycleMember } : {}),
    });
  }
  return {
    folder: isStr(r.folder) ? r.folder : "",
    generation: isNum(r.generation) ? r.generation : 0,
    totalSeconds: figureOr(r.totalSeconds, 0),
    minPercent: isNum(r.minPercent) ? r.minPercent : 0,
    truncated: r.truncated === true,
    frames,
  };
}

// gmonlens/disassembly

/** A call through one call instruction (seconds: gprof's propagated time, an estimate). */
export type ListingCall = Figures<Wire<"DisasmCall">, "seconds">;

/** One instruction: its 0-based text line, figures (percent of the routine) and source. */
export interface ListingInstruction
  extends Pick<Figures<Wire<"DisasmInstruction">, "seconds">, "line" | "address" | "seconds" | "percent" | "path" | "sourceLine"> {
  calls: ListingCall[];
}

/** A text line showing a source line (path: the file found in the workspace). */
export type ListingSource = Pick<Wire<"DisasmSource">, "line" | "path" | "sourceLine">;

export interface Listing extends Pick<Figures<Wire<"Disassembly">, "selfSeconds">, "uri" | "displayName" | "selfSeconds" | "text"> {
  instructions: ListingInstruction[];
  sources: ListingSource[];
}

function parseCall(c: unknown): ListingCall | undefined {
  const r = (isRec(c) ? c : undefined) as Loose<ListingCall> | undefined;
  const seconds = r ? figure(r.seconds) : undefined;
  if (!r || !isStr(r.callee) || !isNum(r.count) || seconds === undefined) {
    return undefined;
  }
  return {
    callee: r.callee,
    count: r.count,
    seconds,
    path: isStr(r.path) ? r.path : null,
    sourceLine: isNum(r.sourceLine) ? r.sourceLine : null,
  };
}

/** Validates the request's result; undefined when it is not a listing (null, or an error). */
export function parseListing(result: unknown): Listing | undefined {
  const r = (isRec(result) ? result : undefined) as Loose<Wire<"Disassembly">> | undefined;
  if (!r || !isStr(r.uri) || !isStr(r.text) || !Array.isArray(r.instructions)) {
    return undefined;
  }
  const instructions: ListingInstruction[] = [];
  for (const item of r.instructions) {
    const i = (isRec(item) ? item : undefined) as Loose<Wire<"DisasmInstruction">> | undefined;
    const seconds = i ? figure(i.seconds) : undefined;
    if (!i || !isNum(i.line) || i.line < 0 || !isNum(i.address) || seconds === undefined || !isNum(i.percent)) {
      continue;
    }
    instructions.push({
      line: Math.floor(i.line),
      address: i.address,
      seconds,
      percent: i.percent,
      path: isStr(i.path) ? i.path : null,
      sourceLine: isNum(i.sourceLine) ? i.sourceLine : 0,
      calls: Array.isArray(i.calls) ? i.calls.map(parseCall).filter((c): c is ListingCall => c !== undefined) : [],
    });
  }
  const sources: ListingSource[] = [];
  for (const item of Array.isArray(r.sources) ? r.sources : []) {
    const s = (isRec(item) ? item : undefined) as Loose<Wire<"DisasmSource">> | undefined;
    if (s && isNum(s.line) && isNum(s.sourceLine)) {
      sources.push({ line: Math.floor(s.line), path: isStr(s.path) ? s.path : null, sourceLine: s.sourceLine });
    }
  }
  return {
    uri: r.uri,
    displayName: isStr(r.displayName) ? r.displayName : "",
    selfSeconds: figureOr(r.selfSeconds, 0),
    text: r.text,
    instructions,
    sources,
  };
}

/** The one line a `gmonlens/disassembly` answer gives instead of a listing, if it is one. */
export function listingError(result: unknown): string | undefined {
  const error = isRec(result) ? (result as Loose<Wire<"DisasmError">>).error : undefined;
  return isStr(error) ? error : undefined;
}

// gmonlens.hottest

/** A `gmonlens.hottest` entry (line 0-based, LSP's). */
export interface HotRoutine extends Pick<Figures<Wire<"Hottest">, "selfSeconds" | "totalSeconds">, "name" | "selfSeconds" | "totalSeconds" | "percent" | "calls"> {
  uri?: string;
  line?: number;
}

/** Validates the server's answer; malformed entries are dropped. */
export function parseHottest(result: unknown): HotRoutine[] {
  if (!Array.isArray(result)) {
    return [];
  }
  const out: HotRoutine[] = [];
  for (const item of result) {
    if (!isRec(item) || !isStr(item.name)) {
      continue;
    }
    const e = item as Loose<Wire<"Hottest">>;
    out.push({
      name: e.name as string,
      selfSeconds: figureOr(e.selfSeconds, 0),
      totalSeconds: figureOr(e.totalSeconds, 0),
      percent: numOr(e.percent, 0),
      calls: typeof e.calls === "number" ? String(e.calls) : isStr(e.calls) ? e.calls : "",
      uri: isStr(e.uri) && e.uri !== "" ? e.uri : undefined,
      line: typeof e.line === "number" && e.line >= 0 ? e.line : undefined,
    });
  }
  return out;
}

// gmonlens.changes

export type ChangeKind = Wire<"ChangeEntry">["kind"];

export interface RoutineChange extends Pick<Wire<"ChangeEntry">, "name" | "kind" | "change"> {
  selfBefore?: number;
  selfAfter?: number;
  totalBefore?: number;
  totalAfter?: number;
  callsBefore?: number;
  callsAfter?: number;
  uri?: string;
  line?: number;
}

const KINDS: readonly ChangeKind[] = ["regression", "improvement", "new", "gone"];

/** Validates the server's answer; malformed entries are dropped, the server's order is kept. */
export function parseChanges(result: unknown): RoutineChange[] {
  if (!Array.isArray(result)) {
    return [];
  }
  const num = (v: unknown) => (isNum(v) ? v : undefined);
  const out: RoutineChange[] = [];
  for (const r of result) {
    if (!isRec(r)) {
      continue;
    }
    const e = r as Loose<Wire<"ChangeEntry">>;
    if (!isStr(e.name) || !KINDS.includes(e.kind as ChangeKind)) {
      continue;
    }
    out.push({
      name: e.name,
      kind: e.kind as ChangeKind,
      change: isStr(e.change) ? e.change : "",
      selfBefore: num(e.selfBefore),
      selfAfter: num(e.selfAfter),
      totalBefore: num(e.totalBefore),
      totalAfter: num(e.totalAfter),
      callsBefore: num(e.callsBefore),
      callsAfter: num(e.callsAfter),
      uri: isStr(e.uri) && e.uri !== "" ? e.uri : undefined,
      line: num(e.line) !== undefined && (e.line as number) >= 0 ? (e.line as number) : undefined,
    });
  }
  return out;
}

// gmonlens.pinBaseline

/** Whether `gmonlens.pinBaseline` pinned something (its answer lists the copies made). */
export function pinnedAny(result: unknown): boolean {
  return Array.isArray(result) && result.length > 0;
}

// gmonlens.tests, gmonlens.selectTest

export interface SuiteTest {
  name: string;
  status?: string;
  /** Wall seconds. */
  duration?: number;
  /** Profiled seconds of its main binary. */
  seconds?: number;
  binary?: string;
}

export interface TestsListing {
  folder: string;
  suite?: string;
  mode: Wire<"TestsList">["mode"];
  selected?: string;
  tests: SuiteTest[];
  problem?: string;
}

const MODES: readonly TestsListing["mode"][] = ["auto", "suite", "test"];

/** One folder's `gmonlens.tests` entry (also `gmonlens.selectTest`'s answer); undefined when it is
 * not one. Malformed tests are dropped. */
export function parseTestsList(value: unknown): TestsListing | undefined {
  if (!isRec(value)) {
    return undefined;
  }
  const e = value as Loose<Wire<"TestsList">>;
  if (!isStr(e.folder) || !MODES.includes(e.mode as TestsListing["mode"])) {
    return undefined;
  }
  const opt = <T>(v: unknown, ok: (x: unknown) => x is T): T | undefined => (ok(v) ? v : undefined);
  const tests: SuiteTest[] = [];
  for (const t of Array.isArray(e.tests) ? e.tests : []) {
    if (!isRec(t) || !isStr(t.name)) {
      continue;
    }
    tests.push({
      name: t.name,
      status: opt(t.status, isStr),
      duration: opt(t.duration, isNum),
      seconds: opt(t.seconds, isNum),
      binary: opt(t.binary, isStr),
    });
  }
  return {
    folder: e.folder,
    suite: opt(e.suite, isStr),
    mode: e.mode as TestsListing["mode"],
    selected: opt(e.selected, isStr),
    tests,
    problem: opt(e.problem, isStr),
  };
}

/** `gmonlens.tests`' answer: each folder's listing. */
export function parseTests(result: unknown): TestsListing[] {
  return Array.isArray(result) ? result.map(parseTestsList).filter((t): t is TestsListing => t !== undefined) : [];
}

// gmonlens/record (and DIR/record.json, the same document)

/** What `gmonlens/record` is sent: the command line (argv, run without a shell), where it runs
 * (relative to the folder), `gmonlens record`'s options. The VS Code command runs `gmonlens
 * record` in a terminal instead; this builds the request for clients and tests alike. */
export function recordParams(
  folder: string | undefined,
  argv: string[],
  cwd?: string,
  options?: Wire<"RecordOptions">,
  workDoneToken?: string,
): Wire<"RecordParams"> {
  return {
    ...(folder === undefined ? {} : { folder }),
    argv,
    ...(cwd === undefined ? {} : { cwd }),
    ...(options === undefined ? {} : { options }),
    ...(workDoneToken === undefined ? {} : { workDoneToken }),
  };
}

export type RecordFinding = Wire<"RecordFinding">;

/** A recording as the command's notifications use it. */
export interface RecordSummary {
  usable: boolean;
  outDir: string;
  exitStatus: number;
  commandStatus: number;
  argv: string[];
  /** how many profile files the recording made */
  profiles: number;
  /** each program whose profiles were summed: samples, seconds (null without a rate), hottest routine */
  programs: { binary: string; samples: number; seconds: number | null; hottest?: string }[];
  diagnosis: RecordFinding[];
}

const SEVERITIES: readonly RecordFinding["severity"][] = ["error", "warning", "note"];

function parseFinding(v: unknown): RecordFinding | undefined {
  if (!isRec(v)) {
    return undefined;
  }
  const d = v as Loose<RecordFinding>;
  if (!isStr(d.code) || !isStr(d.message) || !isStr(d.fix)) {
    return undefined;
  }
  const severity = SEVERITIES.includes(d.severity as RecordFinding["severity"]) ? (d.severity as RecordFinding["severity"]) : "warning";
  const rerun = Array.isArray(d.rerun) ? d.rerun.filter(isStr).slice(0, 8) : [];
  return { code: d.code, severity, message: d.message, fix: d.fix, rerun };
}

/** Reads a recording: `gmonlens/record`'s answer, or the DIR/record.json a terminal's `gmonlens
 * record` wrote (undefined when it is not a gmonlens-record/1 document). Lenient, as the other
 * readers: a malformed finding or program is dropped. */
export function parseRecording(raw: unknown): RecordSummary | undefined {
  if (!isRec(raw) || raw.schema !== "gmonlens-record/1") {
    return undefined;
  }
  const r = raw as Loose<Wire<"Recording">>;
  const command = isRec(r.command) ? (r.command as Loose<Wire<"Recording">["command"]>) : {};
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const programs = list(r.binaries).flatMap((b) => {
    if (!isRec(b) || !isStr(b.binary)) {
      return [];
    }
    const top = list(b.top)[0];
    const hottest = isRec(top) && isStr(top.name) ? { hottest: top.name } : {};
    return [{ binary: b.binary, samples: numOr(b.samples, 0), seconds: isNum(b.seconds) ? b.seconds : null, ...hottest }];
  });
  return {
    usable: r.usable === true,
    outDir: isStr(r.out_dir) ? r.out_dir : "",
    exitStatus: numOr(r.exit_status, 1),
    commandStatus: numOr(r.command_status, 0),
    argv: list(command.argv).filter(isStr),
    profiles: list(r.profiles).length,
    programs,
    diagnosis: list(r.diagnosis)
      .map(parseFinding)
      .filter((d): d is RecordFinding => d !== undefined),
  };
}
