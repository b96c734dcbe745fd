import { afterAll, beforeAll, expect } from 'vitest';
import { Arbiter, type Attributes, PreparedAttributes } from '../../src/index.ts';
import { type ConfigDoc, type FakeArbiter, startFakeArbiter } from './fake-arbiter.ts';
import { memoryLogger } from './logger.ts';

/**
 * The runner of the shared assignment vectors (testdata/eligibility.json,
 * testdata/lifecycle.json): each case through `assign`, `getPrompt` and `getVariables` of a
 * client of the file's config, with exactly the exposures it sends, in order, once.
 */

export interface Exposure {
  experiment_id: string;
  variant: string;
}

export interface VectorCase {
  name: string;
  experiment: string;
  user_id: string;
  attributes?: Record<string, unknown>;
  variant: string | null;
  reason?: string;
  exposures: Exposure[];
}

export interface Vectors {
  config: ConfigDoc;
  cases: VectorCase[];
}

export type AttributesOf = (c: VectorCase) => Attributes | PreparedAttributes | undefined;

/**
 * Each case runs with its attributes as given and, again, prepared: one PreparedAttributes per
 * case, made once and reused by every call, as a request would. The answers must not differ.
 */
const prepared = new Map<VectorCase, PreparedAttributes>();
function preparedOnce(c: VectorCase): PreparedAttributes {
  const made = prepared.get(c) ?? new PreparedAttributes(c.attributes);
  prepared.set(c, made);
  return made;
}
export const ATTRIBUTE_FORMS: Array<[string, AttributesOf]> = [
  ['plain attributes', (c) => c.attributes],
  ['PreparedAttributes', preparedOnce],
];

/** What a case expects the server to receive: its exposures, in order, for its user. */
export const expectedExposures = (c: VectorCase) =>
  c.exposures.map((e) => ({ type: 'exposure', user_id: c.user_id, ...e }));

/**
 * The events the fake server received since the last call, in the order they were sent (one
 * flush is one or more deliveries, in queue order).
 */
export function receiver(fake: FakeArbiter): () => Array<Record<string, unknown>> {
  let seen = 0;
  return () => {
    const fresh = fake.deliveries.slice(seen).flat();
    seen = fake.deliveries.length;
    return fresh.map((id) => {
      const e = fake.events.get(id);
      if (e === undefined) throw new Error(`event ${id} delivered but not stored`);
      return e.variant === undefined
        ? { type: e.type, user_id: e.user_id, experiment_id: e.experiment_id }
        : { type: e.type, user_id: e.user_id, experiment_id: e.experiment_id, variant: e.variant };
    });
  };
}

/** The config's variant `variant` of `experiment` (by name); undefined for null or unknown. */
function variantOf(config: ConfigDoc, experiment: string, variant: string | null) {
  if (variant === null) return undefined;
  return config.experiments
    .find((e) => e.name === experiment)
    ?.variants.find((v) => v.key === variant);
}

/**
 * Every case in order: its variant from each surface, the variant's prompt and variables in the
 * config (the defaults without them), and exactly its exposures, sent once: the fake holds
 * the cases' exposures and nothing else.
 */
export async function expectEveryCase(
  vectors: Vectors,
  { fake, client, received }: ServedVectors,
  attributesOf: AttributesOf,
): Promise<void> {
  for (const c of vectors.cases) {
    const assigned = client.assign(c.experiment, c.user_id, attributesOf(c));
    const prompt = client.getPrompt(c.experiment, c.user_id, 'default', attributesOf(c));
    const variables = client.getVariables(c.experiment, c.user_id, { v: 1 }, attributesOf(c));
    await client.flush();
    const served = variantOf(vectors.config, c.experiment, c.variant);
    expect({ name: c.name, assigned, prompt, variables, sent: received() }).toEqual({
      name: c.name,
      assigned: c.variant,
      prompt:
        typeof served?.prompt === 'string'
          ? { variant: c.variant, prompt: served.prompt, fallback: false }
          : { variant: c.variant, prompt: 'default', fallback: true },
      variables: { v: 1, ...served?.variables },
      sent: expectedExposures(c),
    });
  }
  expect(fake.events.size).toBe(vectors.cases.reduce((n, c) => n + c.exposures.length, 0));
}

/**
 * A ready client of `fake` that flushes only when told. Without `trackExposures` it runs as the
 * integrations' tests run it: a model call records its own exposure.
 */
export async function vectorClient(fake: FakeArbiter, trackExposures = true): Promise<Arbiter> {
  const client = new Arbiter({
    apiKey: fake.apiKey,
    baseUrl: fake.baseUrl,
    flushIntervalMs: 3_600_000,
    ...(trackExposures ? {} : { trackExposures: false }),
    logger: memoryLogger(),
  });
  expect(await client.ready()).toBe(true);
  return client;
}

/** What `servedVectors` gives the tests of its describe once its `beforeAll` has run. */
export interface ServedVectors {
  fake: FakeArbiter;
  client: Arbiter;
  received: () => Array<Record<string, unknown>>;
}

/**
 * For the enclosing describe: a fake Arbiter serving the vectors' config, a client of it
 * (`vectorClient`), and the events the fake received since last asked; all closed after.
 */
export function servedVectors(vectors: Vectors, trackExposures = true): ServedVectors {
  const served = {} as ServedVectors;
  beforeAll(async () => {
    served.fake = await startFakeArbiter({ config: vectors.config });
    served.received = receiver(served.fake);
    served.client = await vectorClient(served.fake, trackExposures);
  });
  afterAll(async () => {
    await served.client.close();
    await served.fake.close();
  });
  return served;
}
