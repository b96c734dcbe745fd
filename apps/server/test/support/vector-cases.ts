import { readFileSync } from 'node:fs';
import { createBucketer } from '@arbiter/bucketing';
import {
  type EligibleExperiment,
  eligibility,
  eligibilityWorld,
} from '../../src/domain/experiments/eligibility.ts';
import type { Harness } from './harness.ts';

/** One case of a shared vector file: who asks for which experiment, and what they get. */
export interface VectorCase {
  name: string;
  experiment: string;
  user_id: string;
  attributes?: Record<string, unknown>;
  variant: string | null;
  reason?: string;
}

/** `testdata/<name>.json`: a config (typed as the caller reads it) and its cases. */
export function readVectorFile<Config>(name: string): { config: Config; cases: VectorCase[] } {
  return JSON.parse(
    readFileSync(new URL(`../../../../testdata/${name}.json`, import.meta.url), 'utf8'),
  );
}

/** What a case expects: its variant, or null with its reason. */
export function expectedAnswer(c: VectorCase): object {
  return c.reason === undefined ? { variant: c.variant } : { variant: null, reason: c.reason };
}

/** The cases `answer` answers otherwise than they expect, each with both answers. */
export async function wrongAnswers(
  cases: readonly VectorCase[],
  answer: (c: VectorCase) => object | Promise<object>,
): Promise<object[]> {
  const wrong: object[] = [];
  for (const c of cases) {
    const got = await answer(c);
    const expected = expectedAnswer(c);
    if (JSON.stringify(got) !== JSON.stringify(expected))
      wrong.push({ name: c.name, got, expected });
  }
  return wrong;
}

/** A case asked of `POST /v1/assign` with `key`, its answer less the config version. */
export async function assignAnswer(h: Harness, key: string, c: VectorCase): Promise<object> {
  const res = await h.ingest(key, {
    method: 'POST',
    url: '/v1/assign',
    payload: {
      experiment_id: c.experiment,
      user_id: c.user_id,
      ...(c.attributes === undefined ? {} : { attributes: c.attributes }),
    },
  });
  const { config_version: _, ...got } = res.json();
  return got;
}

/** A vector file's config as the server's evaluation reads it. */
export type EvaluatedConfig = Parameters<typeof eligibilityWorld>[0] & {
  experiments: Array<
    Omit<EligibleExperiment, 'bucketOf'> & { name: string; salt: string; bucket_count: number }
  >;
};

/**
 * The server's evaluation over a vector file's config: its experiments by name, and a case's
 * answer (undefined when the case's experiment is absent from the config).
 */
export function serverEvaluation(config: EvaluatedConfig) {
  const world = eligibilityWorld(config);
  const experiments = new Map(
    config.experiments.map((e) => [
      e.name,
      { ...e, bucketOf: createBucketer(e.salt, e.bucket_count) },
    ]),
  );
  const answer = (c: VectorCase) => {
    const experiment = experiments.get(c.experiment);
    return experiment && eligibility(experiment, c.user_id, c.attributes ?? {}, world);
  };
  return { experiments, answer };
}
