/**
 * Seconds as every view shows them, worded once (as the server's `gmonlens.common.units.shown`):
 * two decimals, as gprof prints them; `NO_TIME` where the profile has no sampling rate (the wire
 * says null: seconds cannot be computed), never "0.00 s", which would read as "measured: nothing".
 * Pure: no `vscode` import.
 */

/** How a figure in seconds reads where the profile has no sampling rate (the server's word). */
export const NO_TIME = "n/a";

/** Why a figure in seconds is `NO_TIME`, for tooltips and summaries. */
export const NO_RATE = "the profile has no sampling rate, so its seconds cannot be computed";

/** A figure in seconds without its unit: "1.23"; `NO_TIME` for null. */
export function secondsFigure(s: number | null): string {
  return s === null ? NO_TIME : s.toFixed(2);
}

/** A figure in seconds with its unit: "1.23 s"; `NO_TIME` (no unit) for null. */
export function seconds(s: number | null): string {
  return s === null ? NO_TIME : `${secondsFigure(s)} s`;
}
