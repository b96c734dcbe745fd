/**
 * Results appear once every arm has the server's number of evaluated events (about 200 by
 * default, docs/decisions/analysis.md#window-arms-and-the-collecting-threshold); the live view says what that number is. The least-filled arm
 * decides when results can appear.
 */
export function collectingProgress(live: {
  arms: Record<string, { exposures: number }>;
  min_events_per_arm: number;
}) {
  const counts = Object.values(live.arms).map((a) => a.exposures);
  const least = counts.length === 0 ? 0 : Math.min(...counts);
  const target = live.min_events_per_arm;
  return { least, share: Math.min(1, least / target), target };
}
