/**
 * The `gmonlens.tests` answer (read by protocol.ts) as quick pick items: the whole suite, the
 * server's own choice, then each test by profiled time. Pure: no `vscode` import.
 */

import type { SuiteTest, TestChoice, TestsListing } from "./protocol";
import { seconds } from "./units";

export interface TestItem {
  label: string;
  description: string;
  detail?: string;
  choice: TestChoice;
  picked: boolean;
}

/** Its profiled seconds; NO_TIME when its binary's profile has no sampling rate, "no time" without one. */
function profiled(t: SuiteTest): string {
  return t.seconds !== undefined ? seconds(t.seconds) : t.binary !== undefined ? seconds(null) : "no time";
}

function testItem(t: SuiteTest, listing: TestsListing): TestItem {
  const status = t.status ?? "unknown";
  const icon = status === "passed" ? "$(pass)" : status === "skipped" ? "$(debug-step-over)" : "$(error)";
  return {
    label: `${icon} ${t.name}`,
    description: `${profiled(t)} profiled · ${status}${t.duration === undefined ? "" : ` · ${seconds(t.duration)} wall`}`,
    detail: t.binary,
    choice: { kind: "test", name: t.name },
    picked: listing.mode === "test" && listing.selected === t.name,
  };
}

/** The items, costliest test first (ties: the suite's order). */
export function testItems(listing: TestsListing): TestItem[] {
  const tests = listing.tests
    .map((t, i) => ({ t, i }))
    .sort((a, b) => (b.t.seconds ?? -1) - (a.t.seconds ?? -1) || a.i - b.i)
    .map(({ t }) => testItem(t, listing));
  return [
    {
      label: "$(layers) Whole suite",
      description: `every test's profile summed (${listing.tests.length} tests)`,
      choice: { kind: "suite" },
      picked: listing.mode === "suite",
    },
    {
      label: "$(search) As found",
      description: "the profiles gmonlens finds in the folder (the whole suite when there are none)",
      choice: { kind: "auto" },
      picked: listing.mode === "auto",
    },
    ...tests,
  ];
}

/** The status bar's words after a choice. */
export function chosenText(listing: TestsListing): string {
  switch (listing.mode) {
    case "test":
      return `gmonlens: showing test ${listing.selected ?? "?"}`;
    case "suite":
      return "gmonlens: showing the whole suite";
    default:
      return "gmonlens: showing the profiles found";
  }
}
