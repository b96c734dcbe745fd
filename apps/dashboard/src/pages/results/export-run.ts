import type { Results } from '../../api/client.ts';

const COLUMNS = [
  'metric',
  'treatment',
  'control',
  'test',
  'effect',
  'ci_low',
  'ci_high',
  'lift',
  'p_value',
  'p_value_fdr',
  'significant',
  'srm_p',
  'window_days',
  'preliminary',
] as const;

function cell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The served run as CSV: one row per metric × treatment (RFC 4180 quoting). */
export function runCsv(run: Results): string {
  const lines = [['run', ...COLUMNS].join(',')];
  for (const r of Object.values(run.results))
    lines.push([run.computed_for, ...COLUMNS.map((c) => r[c])].map(cell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export function download(filename: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.click();
  URL.revokeObjectURL(url);
}
