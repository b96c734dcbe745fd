import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';
import { assignAnswer, readVectorFile, wrongAnswers } from '../../support/vector-cases.ts';

/**
 * testdata/eligibility.json through POST /v1/assign, on an org whose config is built through
 * the API to match the file's: the same saved groups, layers (with the same layer ranges,
 * reached by first fit and a growth), holdouts (same salts and buckets) and experiments. The
 * file's three experiments the API cannot build are left out: a layer the org lacks and an
 * unreadable condition (both refused at save, checked below), and a holdout the org lacks (an
 * experiment names its holdouts only through the holdouts that exist).
 */
const file = readVectorFile<{
  experiments: Array<{ name: string; targeting?: Record<string, unknown> }>;
  saved_groups: Record<string, Array<string | number>>;
}>('eligibility');
const UNBUILDABLE = ['lost-layer', 'held-unknown', 'unreadable'];

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
const ok = async (url: string, payload: object, method: 'POST' | 'PUT' = 'POST') => {
  const res = await h.call(acme.admin, { method, url, payload });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.body}`);
  return res.json();
};

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('eligibility');
  for (const [key, values] of Object.entries(file.config.saved_groups))
    await ok('/v1/saved-groups', { key, values });
  await ok('/v1/layers', { name: 'chat', salt: 'layer-chat', bucket_count: 1000 });
  await ok('/v1/layers', { name: 'search', salt: 'layer-search', bucket_count: 100 });
  const layered: Record<string, { layer: string; layer_weight: number }> = {
    'chat-tone': { layer: 'chat', layer_weight: 30 },
    'chat-length': { layer: 'chat', layer_weight: 30 },
    'chat-targeted': { layer: 'chat', layer_weight: 10 },
    'search-sliver': { layer: 'search', layer_weight: 5 },
    'held-both-layered-targeted': { layer: 'search', layer_weight: 95 },
  };
  for (const e of file.config.experiments) {
    if (UNBUILDABLE.includes(e.name)) continue;
    await ok('/v1/experiments', {
      name: e.name,
      salt: `salt-${e.name}`,
      bucket_count: 100,
      allocation: [
        { variant: 'control', weight: 40 },
        { variant: 'treatment', weight: 40 },
      ],
      metrics: [],
      ...(e.targeting === undefined ? {} : { targeting: e.targeting }),
      ...(layered[e.name] ?? {}),
    });
  }
  // chat-tone's second run, [700, 800), is the lowest never-used one once the others have theirs
  await ok('/v1/experiments/chat-tone', { layer_weight: 40 }, 'PUT');
  await ok('/v1/holdouts', {
    name: 'global',
    salt: 'holdout-global',
    bucket_count: 1000,
    percent: 10,
    experiments: ['held-global', 'held-both-layered-targeted'],
  });
  await ok('/v1/holdouts', {
    name: 'q4',
    salt: 'holdout-q4',
    bucket_count: 10000,
    percent: 2.5,
    experiments: ['held-both-layered-targeted'],
  });
});
afterAll(() => h.close());

describe('testdata/eligibility.json through POST /v1/assign', () => {
  it('serves the file’s layer ranges and holdout ranges', async () => {
    const served = (await h.ingest(acme.secret, { method: 'GET', url: '/v1/config' })).json();
    const expected = file.config as unknown as {
      experiments: Array<Record<string, unknown>>;
      holdouts: Array<Record<string, unknown>>;
      layers: unknown;
    };
    const pick = (c: { experiments: Array<Record<string, unknown>> }) =>
      c.experiments
        .filter((e) => !UNBUILDABLE.includes(e.name as string))
        .map((e) => ({
          name: e.name,
          layer: e.layer,
          layer_ranges: e.layer_ranges,
          ranges: e.ranges,
        }));
    expect(pick(served)).toEqual(pick(expected));
    const holdouts = (c: { holdouts: Array<Record<string, unknown>> }) =>
      c.holdouts.map(({ id: _, ...rest }) => rest);
    expect(holdouts(served)).toEqual(holdouts(expected));
    expect(served.layers).toEqual(expected.layers);
  });

  it('refuses at save the layer the org lacks and the unreadable condition', async () => {
    const base = { bucket_count: 100, allocation: [{ variant: 'a', weight: 50 }], metrics: [] };
    const lost = await h.call(acme.admin, {
      method: 'POST',
      url: '/v1/experiments',
      payload: { ...base, name: 'lost-layer', salt: 's', layer: 'gone', layer_weight: 100 },
    });
    expect(lost.json().errors).toEqual([
      { pointer: '#/layer', detail: 'no layer is named "gone"' },
    ]);
    const unreadable = await h.call(acme.admin, {
      method: 'POST',
      url: '/v1/experiments',
      payload: { ...base, name: 'unreadable', salt: 's', targeting: { plan: { $bogus: 1 } } },
    });
    expect(unreadable.statusCode).toBe(400);
    expect(unreadable.json().errors[0].pointer).toBe('#/targeting/plan/$bogus');
  });

  it('answers every case’s variant and reason', async () => {
    const cases = file.cases.filter((c) => !UNBUILDABLE.includes(c.experiment));
    const wrong = await wrongAnswers(cases, (c) => assignAnswer(h, acme.secret, c));
    expect(wrong).toEqual([]);
    expect(cases.length).toBeGreaterThan(1000);
    const reasons = new Set(cases.map((c) => c.reason ?? 'enrolled'));
    expect(reasons.size).toBe(5);
  });

  it('gives every case’s variant through OFREP, with its reason', async () => {
    const cases = file.cases.filter((c) => !UNBUILDABLE.includes(c.experiment));
    const wrong: object[] = [];
    for (const c of cases) {
      const res = await h.ingest(acme.secret, {
        method: 'POST',
        url: `/ofrep/v1/evaluate/flags/${encodeURIComponent(`${c.experiment}:$variant`)}`,
        payload: { context: { targetingKey: c.user_id, ...(c.attributes ?? {}) } },
      });
      const { value, reason } = res.json();
      const want =
        c.reason === undefined
          ? { value: c.variant, reason: 'SPLIT' }
          : {
              value: undefined,
              reason: 'DEFAULT',
            };
      if (res.statusCode !== 200 || value !== want.value || reason !== want.reason)
        wrong.push({ name: c.name, got: res.json(), want });
    }
    expect(wrong).toEqual([]);
  });
});
