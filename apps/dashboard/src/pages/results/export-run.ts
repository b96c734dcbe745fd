import type { MetricResult, Results } from '../../api/client.ts';

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

/**
 * Columns of the decision, after the original ones so those keep their positions; named as in
 * the server's export (GET /v1/experiments/{id}/results/export).
 */
const DECISION_COLUMNS: Array<[string, (r: MetricResult, run: Results) => unknown]> = [
  ['direction', (r) => r.direction],
  ['outcome', (r) => r.outcome],
  ['guardrail_violated', (r) => r.category === 'guardrail' && r.outcome === 'worse'],
  ['sequential_p_value', (r) => r.sequential?.p_value],
  ['sequential_p_value_fdr', (r) => r.sequential?.p_value_fdr],
  ['sequential_ci_low', (r) => r.sequential?.ci_low],
  ['sequential_ci_high', (r) => r.sequential?.ci_high],
  ['mde', (r) => r.mde],
  ['users_needed_per_arm', (r) => r.users_needed_per_arm],
  ['days_to_decision', (r) => r.days_to_decision],
  ['recommendation', (_, run) => run.decision.recommendation],
  ['recommended_treatment', (_, run) => run.decision.treatment],
];

function cell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The served run as CSV: one row per metric × treatment (RFC 4180 quoting). */
export function runCsv(run: Results): string {
  const lines = [['run', ...COLUMNS, ...DECISION_COLUMNS.map(([name]) => name)].join(',')];
  for (const r of Object.values(run.results))
    lines.push(
      [
        run.computed_for,
        ...COLUMNS.map((c) => r[c]),
        ...DECISION_COLUMNS.map(([, value]) => value(r, run)),
      ]
        .map(cell)
        .join(','),
    );
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
