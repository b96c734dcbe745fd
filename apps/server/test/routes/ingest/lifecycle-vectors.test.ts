import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';
import { assignAnswer, readVectorFile, wrongAnswers } from '../../support/vector-cases.ts';

/**
 * testdata/lifecycle.json through POST /v1/assign, on an org built through the API to match the
 * file's config: the same holdout, layer and experiments, each moved to its status by the
 * lifecycle routes (the archived ones stopped or left draft, then archived).
 */
interface FileExperiment {
  name: string;
  status?: string;
  served_variant?: string;
  targeting?: Record<string, unknown>;
  layer?: string;
  holdouts?: string[];
  variants: Array<{ key: string; prompt?: string; variables?: Record<string, unknown> }>;
}
const file = readVectorFile<{
  experiments: FileExperiment[];
  saved_groups: Record<string, Array<string | number>>;
}>('lifecycle');

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
const ok = async (url: string, payload?: object) => {
  const res = await h.call(acme.admin, {
    method: 'POST',
    url,
    ...(payload === undefined ? {} : { payload }),
  });
  if (res.statusCode >= 300) throw new Error(`POST ${url}: ${res.body}`);
  return res.json();
};
const experiment = (name: string, extra: object = {}) =>
  ok('/v1/experiments', {
    name,
    salt: `salt-${name}`,
    bucket_count: 100,
    allocation: [
      { variant: 'control', weight: 40 },
      { variant: 'treatment', weight: 40 },
    ],
    variants: [
      { key: 'control', prompt: `${name}: control prompt`, variables: { arm: 'control' } },
      { key: 'treatment', prompt: `${name}: treatment prompt`, variables: { arm: 'treatment' } },
    ],
    metrics: [],
    ...extra,
  });

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('lifecycle-vectors');
  await ok('/v1/layers', { name: 'search', salt: 'layer-search', bucket_count: 100 });
  for (const e of file.config.experiments) {
    await experiment(e.name, {
      ...(e.status === 'draft' ? { status: 'draft' } : {}),
      ...(e.targeting === undefined ? {} : { targeting: e.targeting }),
      ...(e.layer === undefined ? {} : { layer: e.layer, layer_weight: 50 }),
    });
  }
  await ok('/v1/holdouts', {
    name: 'global',
    salt: 'holdout-global',
    bucket_count: 1000,
    percent: 10,
    experiments: file.config.experiments.filter((e) => e.holdouts !== undefined).map((e) => e.name),
  });
  for (const e of file.config.experiments.filter((x) => x.status === 'stopped')) {
    const stop =
      e.name === 'rolled-back'
        ? { conclusion: 'rollback' }
        : e.name === 'inconclusive'
          ? { conclusion: 'inconclusive' }
          : { conclusion: 'ship', variant: e.served_variant };
    await ok(`/v1/experiments/${e.name}/stop`, stop);
  }
  await experiment('archived-from-stopped');
  await ok('/v1/experiments/archived-from-stopped/stop', { conclusion: 'rollback' });
  await ok('/v1/experiments/archived-from-stopped/archive');
  await experiment('archived-from-draft', { status: 'draft' });
  await ok('/v1/experiments/archived-from-draft/archive');
});
afterAll(() => h.close());

describe('testdata/lifecycle.json through POST /v1/assign', () => {
  it('serves the file’s statuses and served variants, and no archived experiment', async () => {
    const served = (await h.ingest(acme.secret, { method: 'GET', url: '/v1/config' })).json();
    const pick = (c: { experiments: FileExperiment[] }) =>
      c.experiments.map((e) => ({
        name: e.name,
        status: e.status ?? 'running',
        served_variant: e.served_variant,
        variants: e.variants,
      }));
    expect(pick(served)).toEqual(pick(file.config));
  });

  it('answers every case’s variant and reason', async () => {
    const wrong = await wrongAnswers(file.cases, (c) => assignAnswer(h, acme.secret, c));
    expect(wrong).toEqual([]);
    const reasons = new Set(file.cases.map((c) => c.reason ?? 'served'));
    expect(reasons.size).toBe(7);
  });

  it('gives every case’s variant through OFREP, with its reason', async () => {
    const stopped = new Set(
      file.config.experiments.filter((e) => e.status === 'stopped').map((e) => e.name),
    );
    const wrong: object[] = [];
    for (const c of file.cases) {
      const res = await h.ingest(acme.secret, {
        method: 'POST',
        url: `/ofrep/v1/evaluate/flags/${encodeURIComponent(`${c.experiment}:$variant`)}`,
        payload: { context: { targetingKey: c.user_id, ...(c.attributes ?? {}) } },
      });
      // An id that names no experiment of the org (a holdout's) is OFREP's FLAG_NOT_FOUND.
      if (c.reason === 'unknown_experiment' && res.statusCode === 404) continue;
      const { value, reason } = res.json();
      const want =
        c.reason === undefined
          ? { value: c.variant, reason: stopped.has(c.experiment) ? 'STATIC' : 'SPLIT' }
          : { value: undefined, reason: OFREP_REASON[c.reason] };
      if (res.statusCode !== 200 || value !== want.value || reason !== want.reason)
        wrong.push({ name: c.name, got: res.json(), want });
    }
    expect(wrong).toEqual([]);
  });
});

/** /v1/assign's reason for a null variant, as OFREP reports it (docs/decisions/openfeature.md#reasons). */
const OFREP_REASON: Record<string, string> = {
  draft: 'DISABLED',
  unknown_experiment: 'DISABLED',
  held_out: 'DEFAULT',
  not_in_layer: 'DEFAULT',
  not_enrolled: 'DEFAULT',
  not_targeted: 'DEFAULT',
};
