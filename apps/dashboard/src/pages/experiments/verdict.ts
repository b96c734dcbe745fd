import type { SummaryEntry } from '../../api/client.ts';

export interface ListVerdict {
  text: string;
  /** The badge's colour: green to ship, red to keep control or halted, slate otherwise. */
  tone: 'better' | 'worse' | 'plain';
}

/**
 * The last run's verdict in a few words for the experiments list: "Ship concise", "Keep
 * control", "SRM halted", or "Keep collecting, about 6 days". The days are the longest wait
 * among the run's primary estimates: by then every primary metric of every treatment has the
 * users its minimum detectable effect needs. The dashboard decides nothing; it words `decision`.
 */
export function listVerdict(entry: SummaryEntry): ListVerdict {
  const d = entry.decision;
  if (entry.srm.halted || d.recommendation === 'halted')
    return { text: 'SRM halted', tone: 'worse' };
  if (d.recommendation === 'ship')
    return { text: d.treatment === null ? 'Ship' : `Ship ${d.treatment}`, tone: 'better' };
  if (d.recommendation === 'keep_control') return { text: 'Keep control', tone: 'worse' };
  return { text: collectingText(entry), tone: 'plain' };
}

function collectingText(entry: SummaryEntry): string {
  const days = Object.values(entry.results)
    .filter((r) => r.category === 'primary')
    .map((r) => r.days_to_decision)
    .filter((n): n is number => typeof n === 'number');
  if (days.length === 0) return 'Keep collecting';
  const longest = Math.max(...days);
  if (longest === 0) return 'Keep collecting, enough users already';
  return `Keep collecting, about ${longest} day${longest === 1 ? '' : 's'}`;
}
