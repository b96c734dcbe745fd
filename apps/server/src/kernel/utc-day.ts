/**
 * UTC calendar days, the unit aggregates, windows and nightly runs are keyed by. One module so
 * every layer cuts a day at the same instant (UTC midnight) and spells it the same way.
 */

export const DAY_MS = 86_400_000;

/** The UTC day an instant falls on, as `YYYY-MM-DD`. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The UTC day before the one `at` falls on: what the nightly run at 00:15 UTC analyses. */
export function previousUtcDay(at: Date): string {
  return utcDay(new Date(at.getTime() - DAY_MS));
}

/** UTC midnight at the start of the day `at` falls on. */
export function startOfUtcDay(at: Date): Date {
  return new Date(`${utcDay(at)}T00:00:00.000Z`);
}
