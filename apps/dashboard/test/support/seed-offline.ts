import { type Api, call, metric, newOrg } from './seed.ts';

/**
 * An org with an offline evaluation made through the HTTP API, as a CI job would make it: the
 * experiment `faq-bot` (control, terse, polished), the dataset `faq` (24 items q00…q23) and two
 * runs of it. The first is complete: 2 repeats, exact_match with a 5-point non-inferiority
 * margin and levenshtein. Control answers right where i % 3 ≠ 0 (16 of 24); polished answers
 * every item right (better); terse only i < 10 with i % 3 ≠ 0, and flips on q10 and q11 (right
 * on repeat 0 only): worse. Terse fails once (q05, repeat 1: "timeout") and polished's q23
 * repeat 1 never arrives. Terse is 300 ms faster; polished as fast as control. The second run is left running with 6 results.
 */
export interface OfflineOrg {
  org: string;
  api: Api;
  experimentId: string;
  datasetId: string;
  completeRunId: string;
  runningRunId: string;
}

export const ITEM_COUNT = 24;
export const itemId = (i: number) => `q${String(i).padStart(2, '0')}`;
const expected = (i: number) => `answer ${i}`;

const RIGHT: Record<string, (i: number, repeat: number) => boolean> = {
  control: (i) => i % 3 !== 0,
  terse: (i, repeat) => (i < 10 && i % 3 !== 0) || ((i === 10 || i === 11) && repeat === 0),
  polished: () => true,
};
const LATENCY: Record<string, number> = { control: 800, terse: 500, polished: 800 };

/** The output a variant gave for an item: the expected answer, or a near miss. */
export const outputOf = (variant: string, i: number, repeat: number) =>
  (RIGHT[variant] as (i: number, r: number) => boolean)(i, repeat)
    ? expected(i)
    : `no idea about ${i}`;

export function resultRows(variants: string[], repeats: number) {
  const rows: object[] = [];
  for (const variant of variants)
    for (let i = 0; i < ITEM_COUNT; i++)
      for (let repeat = 0; repeat < repeats; repeat++) {
        if (variant === 'polished' && i === 23 && repeat === 1) continue;
        const base = { item_id: itemId(i), variant, repeat };
        if (variant === 'terse' && i === 5 && repeat === 1) {
          rows.push({ ...base, error: 'timeout', latency_ms: 30000 });
          continue;
        }
        rows.push({
          ...base,
          output: outputOf(variant, i, repeat),
          latency_ms: (LATENCY[variant] as number) + i,
          input_tokens: 100,
          output_tokens: 20,
          model: 'fake-model',
        });
      }
  return rows;
}

export async function seedOfflineOrg(base: string): Promise<OfflineOrg> {
  const { org, api } = await newOrg(base, 'offline');
  const experiment = await call(api, 'POST', '/v1/experiments', {
    name: 'faq-bot',
    salt: 'faq-bot-salt',
    bucket_count: 999,
    allocation: [
      { variant: 'control', weight: 34 },
      { variant: 'terse', weight: 33 },
      { variant: 'polished', weight: 33 },
    ],
    variants: [
      { key: 'control', prompt: 'Answer the question.' },
      { key: 'terse', prompt: 'Answer in three words.' },
      { key: 'polished', prompt: 'Answer exactly, citing the FAQ.' },
    ],
    metrics: [metric('latency', 'latency', 'welch_t')],
  });
  const dataset = await call(api, 'POST', '/v1/datasets', {
    name: 'faq',
    description: 'Questions from the help centre',
  });
  const items = Array.from({ length: ITEM_COUNT }, (_, i) => ({
    id: itemId(i),
    input: `question ${i}`,
    expected_output: expected(i),
    group: i % 2 === 0 ? 'billing' : 'account',
  }));
  await call(api, 'POST', `/v1/datasets/${dataset.id}/items`, { items });
  const run = await call(api, 'POST', `/v1/experiments/${experiment.id}/offline-runs`, {
    dataset_id: dataset.id,
    repeats: 2,
    scorers: [
      { name: 'exact', kind: 'exact_match', non_inferiority_margin: 0.05 },
      { name: 'similarity', kind: 'levenshtein' },
    ],
    note: 'nightly prompt check',
  });
  const rows = resultRows(run.variants, 2);
  for (let i = 0; i < rows.length; i += 500) {
    const ack = await call(api, 'POST', `/v1/offline-runs/${run.id}/results`, {
      results: rows.slice(i, i + 500),
    });
    if (ack.errors.length > 0) throw new Error(`results: ${JSON.stringify(ack.errors)}`);
  }
  await call(api, 'POST', `/v1/offline-runs/${run.id}/complete`);
  const running = await call(api, 'POST', `/v1/experiments/${experiment.id}/offline-runs`, {
    dataset_id: dataset.id,
    variants: ['control', 'terse'],
  });
  await call(api, 'POST', `/v1/offline-runs/${running.id}/results`, {
    results: resultRows(['control'], 1).slice(0, 6),
  });
  return {
    org,
    api,
    experimentId: experiment.id,
    datasetId: dataset.id,
    completeRunId: run.id,
    runningRunId: running.id,
  };
}

/** A text body (CSV, NDJSON) as a CI job uploads it. */
export async function uploadText(api: Api, datasetId: string, type: string, body: string) {
  const res = await fetch(`${api.base}/v1/datasets/${datasetId}/items`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': type },
    body,
  });
  if (!res.ok) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return (await res.json()) as {
    items: number;
    errors: Array<{ line: number; detail: string }>;
    version: number;
  };
}
