const UNIT_MS: Record<string, number> = {
  W: 7 * 86_400_000,
  D: 86_400_000,
  H: 3_600_000,
  M: 60_000,
  S: 1000,
};

/**
 * The length in milliseconds of an ISO 8601 duration the rollout schema admits
 * (`schemas/rollout.ts`: weeks, or days and a time of hours, minutes and seconds). An `M` before
 * the `T` would be months, which the schema refuses.
 */
export function durationMs(iso: string): number {
  const [date = '', time = ''] = iso.slice(1).split('T');
  let total = 0;
  for (const [part, units] of [
    [date, 'WD'],
    [time, 'HMS'],
  ] as const) {
    for (const [, amount, unit] of part.matchAll(/(\d+)([A-Z])/g)) {
      if (!units.includes(unit as string)) throw new RangeError(`not a duration: ${iso}`);
      total += Number(amount) * (UNIT_MS[unit as string] as number);
    }
  }
  return total;
}
