/**
 * Results appear once every arm has about this many evaluated events (SPEC §1 behaviour 6,
 * DESIGN §7 default of ARBITER_MIN_EVENTS_PER_ARM). The server does not publish its setting,
 * so the progress shown is against the documented default.
 */
export const EVENTS_PER_ARM_FOR_RESULTS = 200;

/** The least-filled arm decides when results can appear. */
export function collectingProgress(arms: Record<string, { exposures: number }>) {
  const counts = Object.values(arms).map((a) => a.exposures);
  const least = counts.length === 0 ? 0 : Math.min(...counts);
  return {
    least,
    share: Math.min(1, least / EVENTS_PER_ARM_FOR_RESULTS),
    target: EVENTS_PER_ARM_FOR_RESULTS,
  };
}
