import type { MetricResult, Results } from '../../api/client.ts';

type Breakdown = NonNullable<Results['breakdown']>;
type SliceResult = Breakdown['slices'][number]['results'][string];
/** A run's own result, or a slice's (no FDR, outcome, sequential block or time to decision). */
type AnyResult = MetricResult | SliceResult;

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
const DECISION_COLUMNS: Array<[string, (r: Partial<MetricResult>, run: Results) => unknown]> = [
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

/** The breakdown's columns, last, as the server's export has them. */
const SLICE_COLUMNS = ['dimension', 'slice', 'exploratory'] as const;

/** A slice row keeps only what a slice has: no FDR, significance, outcome or sequential block. */
const OWN_ONLY = new Set<string>(['p_value_fdr', 'significant', 'outcome']);

function cell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/**
 * The served run as CSV: one row per metric × treatment (RFC 4180 quoting); with the breakdown
 * "Split by" shows, then one row per metric × treatment × slice, marked exploratory, with
 * `p_value_fdr`, `significant` and `outcome` empty, as the server's export with `?dimension=`.
 */
export function runCsv(run: Results, breakdown?: Breakdown | null): string {
  const lines = [
    ['run', ...COLUMNS, ...DECISION_COLUMNS.map(([name]) => name), ...SLICE_COLUMNS].join(','),
  ];
  const row = (r: AnyResult, dimension: string | null, slice: string | null) => {
    const own: Partial<MetricResult> = slice === null ? (r as MetricResult) : {};
    const base = r as unknown as Record<string, unknown>;
    const value = (c: string) => (OWN_ONLY.has(c) ? own[c as keyof MetricResult] : base[c]);
    const decision = { ...own, category: r.category, direction: r.direction };
    lines.push(
      [
        run.computed_for,
        ...COLUMNS.map(value),
        ...DECISION_COLUMNS.map(([, v]) => v(decision, run)),
        dimension,
        slice,
        slice !== null,
      ]
        .map(cell)
        .join(','),
    );
  };
  for (const r of Object.values(run.results)) row(r, null, null);
  for (const s of breakdown?.slices ?? [])
    for (const r of Object.values(s.results)) row(r, breakdown?.dimension ?? null, s.value);
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
