import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * testdata/coverage.json through POST /v1/assign, on an org built through the API to match the
 * file's config: the same holdout and experiments with their coverage, the draft left a draft
 * and the stopped one stopped by the lifecycle route.
 */
interface Case {
  name: string;
  experiment: string;
  user_id: string;
  attributes?: Record<string, unknown>;
  variant: string | null;
  reason?: string;
}
interface FileExperiment {
  name: string;
  salt: string;
  coverage?: number;
  status?: string;
  served_variant?: string;
  targeting?: Record<string, unknown>;
  holdouts?: string[];
  variants: Array<{ key: string; prompt?: string; variables?: Record<string, unknown> }>;
}
const file = JSON.parse(
  readFileSync(new URL('../../../../../testdata/coverage.json', import.meta.url), 'utf8'),
) as { config: { experiments: FileExperiment[] }; cases: Case[] };

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

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('coverage-vectors');
  for (const e of file.config.experiments) {
    await ok('/v1/experiments', {
      name: e.name,
      salt: e.salt,
      bucket_count: 100,
      allocation: [
        { variant: 'control', weight: 40 },
        { variant: 'treatment', weight: 40 },
      ],
      variants: e.variants,
      metrics: [],
      ...(e.status === 'draft' ? { status: 'draft' } : {}),
      ...(e.coverage === undefined ? {} : { coverage: e.coverage }),
      ...(e.targeting === undefined ? {} : { targeting: e.targeting }),
    });
  }
  await ok('/v1/holdouts', {
    name: 'global',
    salt: 'holdout-global',
    bucket_count: 1000,
    percent: 10,
    experiments: file.config.experiments.filter((e) => e.holdouts !== undefined).map((e) => e.name),
  });
  for (const e of file.config.experiments.filter((x) => x.status === 'stopped'))
    await ok(`/v1/experiments/${e.name}/stop`, { conclusion: 'ship', variant: e.served_variant });
});
afterAll(() => h.close());

describe('testdata/coverage.json through POST /v1/assign', () => {
  it('serves each experiment’s coverage in the config as the file has it', async () => {
    const served = (await h.ingest(acme.secret, { method: 'GET', url: '/v1/config' })).json();
    const pick = (c: { experiments: FileExperiment[] }) =>
      c.experiments.map((e) => ({ name: e.name, salt: e.salt, coverage: e.coverage }));
    expect(pick(served)).toEqual(pick(file.config));
  });

  it('answers every case’s variant and reason', async () => {
    const wrong: object[] = [];
    for (const c of file.cases) {
      const res = await h.ingest(acme.secret, {
        method: 'POST',
        url: '/v1/assign',
        payload: {
          experiment_id: c.experiment,
          user_id: c.user_id,
          ...(c.attributes === undefined ? {} : { attributes: c.attributes }),
        },
      });
      const { config_version: _, ...got } = res.json();
      const expected =
        c.reason === undefined ? { variant: c.variant } : { variant: null, reason: c.reason };
      if (JSON.stringify(got) !== JSON.stringify(expected))
        wrong.push({ name: c.name, got, expected });
    }
    expect(wrong).toEqual([]);
    expect(file.cases.some((c) => c.reason === 'not_covered')).toBe(true);
  });
});
