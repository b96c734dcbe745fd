/**
 * Round, evenly spaced axis ticks covering [min, max]: a step of 1, 2 or 5 times a power of
 * ten, about `target` intervals, every tick kept (0/200/400/600/800, never 0/200/400/800).
 * Counts pass `integer` so the step is never below 1.
 */
export function niceTicks(min: number, max: number, target = 4, integer = false): number[] {
  const lo = Math.min(min, max);
  const hi = Math.max(min, max);
  const span = hi - lo || Math.abs(hi) || 1;
  const raw = span / target;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(
    integer ? 1 : 0,
    ([1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power) as number,
  );
  const first = Math.floor(lo / step);
  const last = Math.max(Math.ceil(hi / step), first + 1);
  // Multiples of the step, rounded so that 3 × 0.1 prints as 0.3.
  const digits = Math.max(0, -Math.floor(Math.log10(step)));
  return Array.from({ length: last - first + 1 }, (_, i) =>
    Number(((first + i) * step).toFixed(digits)),
  );
}

/** A count on an axis or in a label: 1,040, not 1.04e+3. */
export const countLabel = (n: number): string => n.toLocaleString('en-US');

/** Ticks for a count axis starting at 0 (histograms, traffic, events per day). */
export function countAxis(values: readonly number[]) {
  const ticks = niceTicks(0, Math.max(0, ...values), 4, true);
  return {
    ticks,
    domain: [0, ticks.at(-1) ?? 1] as [number, number],
    interval: 0 as const,
    allowDecimals: false,
    tickFormatter: countLabel,
  };
}
