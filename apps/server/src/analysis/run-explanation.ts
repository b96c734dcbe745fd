import type { NightlySummary } from './nightly.ts';

/**
 * The sentences `arbiter pipeline run` prints beside its JSON summary, so an empty or partial
 * run says why: which day ran, which experiments that day cannot cover, which are collecting.
 */
export function explainRun(summary: NightlySummary, dayWasDefault: boolean): string[] {
  const lines = [
    dayWasDefault
      ? `pipeline ran for ${summary.day} (yesterday, UTC: the default; pass --day YYYY-MM-DD for another day)`
      : `pipeline ran for ${summary.day}`,
  ];
  if (!summary.ran) {
    lines[0] = `pipeline did not run for ${summary.day}: another process holds the nightly lease (it is running now); try again when it ends`;
    return lines;
  }
  if (summary.experiments.length === 0 && summary.skipped.length === 0)
    lines.push('no experiments exist yet: create one with POST /v1/experiments');
  for (const e of summary.experiments) {
    if (e.status === 'collecting')
      lines.push(
        `  ${e.name}: collecting, an arm has fewer evaluated events than the threshold; GET /v1/experiments/${encodeURIComponent(e.name)}/results gives the counts so far`,
      );
    else if (e.status === 'srm_halted')
      lines.push(
        `  ${e.name}: halted by the SRM check (the traffic split differs from the allocation)`,
      );
    else lines.push(`  ${e.name}: results computed`);
  }
  for (const s of summary.skipped) lines.push(`  skipped ${s.name}: ${s.reason}`);
  return lines;
}
