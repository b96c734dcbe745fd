import { hashUser } from '@arbiter/bucketing';
import { DemoApi, DemoError } from './demo-api.ts';

/**
 * The demo's offline evaluation: a dataset of support questions run through both variants of
 * the checkout experiment, three repeats each, scored by `contains` (the answer names the
 * expected fact) and the measured latency and tokens. Outputs are pure functions of (item,
 * variant, repeat), so a re-run finds the same run and changes nothing.
 */
export const DEMO_DATASET = 'demo-support-questions';
export const DEMO_RUN_NOTE = 'arbiter demo: concise prompt against control, before launch';
const REPEATS = 3;
const SCORER = 'mentions_answer';

/** Forty questions, each with the fact a correct answer names. */
const FACTS: Array<[string, string]> = [
  ['How long does delivery take?', '3 to 5 business days'],
  ['Can I return an opened item?', 'within 30 days'],
  ['Do you ship abroad?', '40 countries'],
  ['Which cards do you take?', 'Visa, Mastercard and Amex'],
  ['Is there a student discount?', '10 percent'],
  ['How do I track my order?', 'tracking link'],
  ['Can I change my address after ordering?', 'before it ships'],
  ['Do gift cards expire?', 'never expire'],
  ['What is the warranty?', 'two years'],
  ['Can I pay in instalments?', 'three instalments'],
];
const TOPICS = ['shoes', 'jackets', 'bags', 'watches'];

export const DEMO_ITEMS = TOPICS.flatMap((topic, t) =>
  FACTS.map(([question, fact], f) => ({
    id: `q-${String(t * FACTS.length + f + 1).padStart(2, '0')}`,
    input: `${question} (${topic})`,
    expected_output: fact,
    group: topic,
  })),
);

function unit(purpose: string, key: string): number {
  return hashUser(`demo-offline-1-${purpose}`, key) / 2 ** 32;
}

/** How often each variant's answer names the fact: the effect the run should find. */
const NAMES_FACT: Record<string, number> = { control: 0.6, concise: 0.85 };

/** One simulated result; the concise prompt answers shorter and names the fact more often. */
export function simulateResult(itemIndex: number, variant: string, repeat: number) {
  const item = DEMO_ITEMS[itemIndex]!;
  const key = `${item.id}-${variant}-${repeat}`;
  const named = unit('fact', key) < (NAMES_FACT[variant] ?? 0);
  const concise = variant === 'concise';
  const answer = named
    ? `Good question: it is ${item.expected_output}. Next step: open your orders page.`
    : 'Please contact our support team for the details of your order.';
  return {
    item_id: item.id,
    variant,
    repeat,
    output: concise ? answer : `Thanks for asking about ${item.group}! ${answer}`,
    latency_ms: Math.round(700 + 400 * unit('latency', key)),
    input_tokens: 380 + Math.round(40 * unit('input', key)),
    output_tokens: (concise ? 40 : 90) + Math.round(30 * unit('output', key)),
    model: 'gpt-4o-mini',
  };
}

/** The dataset by name, made with its items when missing. */
async function ensureDataset(api: DemoApi): Promise<{ id: string; item_count: number }> {
  const found = await api.dashboard('GET', `/v1/datasets/${DEMO_DATASET}`);
  const dataset =
    found.status === 200
      ? found.body
      : DemoApi.expect(
          'creating the demo dataset',
          await api.dashboard('POST', '/v1/datasets', {
            name: DEMO_DATASET,
            description: 'Support questions with the fact a correct answer names',
          }),
          201,
        );
  if (dataset.item_count > 0) return dataset;
  const upload = DemoApi.expect(
    'uploading the demo dataset',
    await api.dashboard('POST', `/v1/datasets/${dataset.id}/items`, { items: DEMO_ITEMS }),
    200,
  );
  if (upload.errors.length > 0)
    throw new DemoError(`the dataset upload refused rows: ${JSON.stringify(upload.errors)}`);
  return { id: dataset.id, item_count: DEMO_ITEMS.length };
}

/** Every result of the run, through the results route in batches as the clients send them. */
async function uploadResults(api: DemoApi, secret: string, runId: string, variants: string[]) {
  const results = variants.flatMap((variant) =>
    DEMO_ITEMS.flatMap((_, i) =>
      Array.from({ length: REPEATS }, (_r, repeat) => simulateResult(i, variant, repeat)),
    ),
  );
  for (let i = 0; i < results.length; i += 500) {
    const body = DemoApi.expect(
      'uploading offline results',
      await api.ingest(secret, 'POST', `/v1/offline-runs/${runId}/results`, {
        results: results.slice(i, i + 500),
      }),
      200,
    );
    if (body.errors.length > 0)
      throw new DemoError(`the results were refused: ${JSON.stringify(body.errors.slice(0, 3))}`);
  }
}

/**
 * The demo's offline run on `experiment`, completed: the one it made before when there is one
 * (finished if it was interrupted), else a new one. Results go with the secret key, as a CI job
 * sends them.
 */
export async function ensureOfflineRun(api: DemoApi, experiment: string, secret: string) {
  const dataset = await ensureDataset(api);
  const runs = DemoApi.expect(
    'listing offline runs',
    await api.dashboard('GET', `/v1/experiments/${experiment}/offline-runs`),
    200,
  ) as Array<{ id: string; note: string | null; status: string; variants: string[] }>;
  let run = runs.find((r) => r.note === DEMO_RUN_NOTE);
  if (run === undefined) {
    run = DemoApi.expect(
      'starting the demo offline run',
      await api.ingest(secret, 'POST', `/v1/experiments/${experiment}/offline-runs`, {
        dataset_id: dataset.id,
        repeats: REPEATS,
        scorers: [{ name: SCORER, kind: 'contains' }],
        note: DEMO_RUN_NOTE,
      }),
      201,
    );
  }
  if (run!.status === 'running') {
    await uploadResults(api, secret, run!.id, run!.variants);
    run = DemoApi.expect(
      'completing the demo offline run',
      await api.ingest(secret, 'POST', `/v1/offline-runs/${run!.id}/complete`, undefined),
      200,
    );
  }
  return run as unknown as OfflineRunBody;
}

export interface OfflineRunBody {
  id: string;
  status: string;
  comparisons: Record<
    string,
    { mean_difference: number | null; p_value_fdr: number | null; outcome: string }
  > | null;
  gates: Record<string, { passed: boolean }> | null;
}

/** The summary's lines about the offline run. */
export function describeOfflineRun(run: OfflineRunBody, url: string): string[] {
  const c = run.comparisons?.[`${SCORER}::concise`];
  const verdict =
    c === undefined
      ? run.status
      : `${SCORER}::concise ${c.outcome} (mean difference ${c.mean_difference?.toFixed(3)}, p(FDR) ${c.p_value_fdr?.toPrecision(2)}); gate ${run.gates?.concise?.passed ? 'passed' : 'not passed'}`;
  return [
    `  offline run on ${DEMO_DATASET} (${DEMO_ITEMS.length} items × 2 variants × ${REPEATS} repeats): ${verdict}`,
    `    ${url}/v1/offline-runs/${run.id}   ${url}/v1/offline-runs/${run.id}/items`,
  ];
}
