import type { NightlySummary } from '../run/nightly.ts';

/** How many names a summary line lists before it says how many more there are. */
const NAMES_SHOWN = 5;

function names(list: Array<{ name: string }>): string {
  const shown = list.slice(0, NAMES_SHOWN).map((e) => e.name);
  const more = list.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

/** One line per kind of outcome that occurred: how many, which (the first few), what it means. */
function outcomeLines(summary: NightlySummary): string[] {
  const by = (status: string) => summary.experiments.filter((e) => e.status === status);
  const computed = summary.experiments.filter(
    (e) => e.status !== 'collecting' && e.status !== 'srm_halted' && e.status !== 'failed',
  );
  const groups: Array<[Array<{ name: string }>, string]> = [
    [computed, 'results computed'],
    [
      by('collecting'),
      'collecting: an arm has fewer evaluated events than the threshold; GET /v1/experiments/NAME/results gives the counts so far',
    ],
    [by('srm_halted'), 'halted by the SRM check: the traffic split differs from the allocation'],
    [
      by('failed'),
      'failed, nothing stored: the next run retries them; GET /v1/admin/health gives the reasons',
    ],
    [
      summary.skipped,
      `skipped: created after ${summary.day}, and an analysis window starts on the day the experiment was created; run a later --day for them`,
    ],
  ];
  return groups
    .filter(([list]) => list.length > 0)
    .map(([list, meaning]) => `  ${list.length} ${meaning} (${names(list)})`);
}

/**
 * What `arbiter pipeline run` prints (`--json` prints the run instead): which day ran, then one
 * line per outcome with its count and the first few names, so an empty or partial run says why
 * without listing every experiment of every org.
 */
export function explainRun(summary: NightlySummary, dayWasDefault: boolean): string[] {
  if (!summary.ran)
    return [
      `pipeline did not run for ${summary.day}: another process holds the nightly lease (it is running now); try again when it ends`,
    ];
  const lines = [
    dayWasDefault
      ? `pipeline ran for ${summary.day} (yesterday, UTC: the default; pass --day YYYY-MM-DD for another day)`
      : `pipeline ran for ${summary.day}`,
  ];
  if (summary.experiments.length === 0 && summary.skipped.length === 0)
    lines.push('no experiments exist yet: create one with POST /v1/experiments');
  lines.push(...outcomeLines(summary));
  if (summary.purged_events > 0)
    lines.push(`  ${summary.purged_events} events past their retention purged`);
  if (summary.experiments.length + summary.skipped.length > 0)
    lines.push('  (--json prints each experiment with its id and status)');
  return lines;
}
