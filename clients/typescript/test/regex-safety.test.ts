import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Arbiter, PreparedAttributes } from '../src/index.ts';
import { type ConfigDoc, type FakeArbiter, startFakeArbiter } from './support/fake-arbiter.ts';
import { memoryLogger } from './support/logger.ts';
import { readTestdata } from './support/testdata.ts';

interface Vectors {
  patterns: Array<{ pattern: string; safe: boolean }>;
  evaluations: Array<{ pattern: string; value: string; matches: boolean }>;
  unportable: Array<{ pattern: string; value: string }>;
}

// The shared vectors, read in place: every evaluator runs the same ones.
const vectors = readTestdata('regex-safety.json') as Vectors;

// A hand-made config whose targeting holds the catastrophic pattern: evaluated, one assignment
// of 29 "a"s and a "!" would backtrack for seconds.
const hostile = JSON.parse(
  readFileSync(new URL('./fixtures/hostile-pattern-config.json', import.meta.url), 'utf8'),
) as ConfigDoc;

/** An experiment everyone enters whose targeting is the condition. */
function experiment(n: number, targeting: unknown): ConfigDoc['experiments'][number] {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    name: `e${n}`,
    version: 1,
    salt: `salt-${n}`,
    bucket_count: 100,
    ranges: [{ variant: 'on', start: 0, end: 100 }],
    variants: [{ key: 'on' }],
    targeting,
  };
}

// Patterns: a safe one is readable, so `$or` with a passing branch admits everyone; an unsafe
// one makes the condition unreadable, which admits no one. Evaluations: the pattern alone.
const patternExperiments = vectors.patterns.map((v, i) =>
  experiment(i, { $or: [{ s: { $regex: v.pattern } }, { absent: { $exists: false } }] }),
);
const evaluationExperiments = vectors.evaluations.map((v, i) =>
  experiment(1000 + i, { s: { $regex: v.pattern } }),
);
// Unportable patterns: JavaScript would match the value, but the condition is unreadable.
const unportableExperiments = vectors.unportable.map((v, i) =>
  experiment(2000 + i, { $or: [{ s: { $regex: v.pattern } }, { absent: { $exists: false } }] }),
);

describe('testdata/regex-safety.json through the client', () => {
  let fake: FakeArbiter;
  let client: Arbiter;
  const logger = memoryLogger();

  beforeAll(async () => {
    const config: ConfigDoc = {
      config_version: 1,
      bucketing_version: '1',
      experiments: [
        ...hostile.experiments,
        ...patternExperiments,
        ...evaluationExperiments,
        ...unportableExperiments,
      ],
    };
    fake = await startFakeArbiter({ config });
    client = new Arbiter({
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      flushIntervalMs: 3_600_000,
      trackExposures: false,
      logger,
    });
    expect(await client.ready()).toBe(true);
  });
  afterAll(async () => {
    await client.close();
    await fake.close();
  });

  it('admits through a safe pattern and never through an unsafe one', () => {
    const answers = vectors.patterns.map((v, i) => ({
      pattern: v.pattern,
      admitted: client.assign(`e${i}`, 'u1', { s: 'x' }) !== null,
    }));
    expect(answers).toEqual(
      vectors.patterns.map((v) => ({ pattern: v.pattern, admitted: v.safe })),
    );
  });

  it('matches each evaluation as the vectors say, plain and prepared', () => {
    vectors.evaluations.forEach((v, i) => {
      const name = `e${1000 + i}`;
      const expected = v.matches ? 'on' : null;
      expect(client.assign(name, 'u1', { s: v.value })).toBe(expected);
      expect(client.assign(name, 'u1', new PreparedAttributes({ s: v.value }))).toBe(expected);
    });
  });

  it('never admits through an unportable pattern, plain or prepared', () => {
    expect(vectors.unportable.length).toBeGreaterThan(10);
    const admitted = vectors.unportable.flatMap((v, i) =>
      [{ s: v.value }, new PreparedAttributes({ s: v.value })]
        .filter((attributes) => client.assign(`e${2000 + i}`, 'u1', attributes) !== null)
        .map(() => v.pattern),
    );
    expect(admitted).toEqual([]);
  });

  it('neither hangs nor throws on the hand-made config with the catastrophic pattern', () => {
    const attack = `${'a'.repeat(29)}!`;
    for (const attributes of [{ name: attack }, new PreparedAttributes({ name: attack })]) {
      expect(client.assign('hostile', 'u1', attributes)).toBeNull();
      expect(client.assign('hostile-negated', 'u1', attributes)).toBeNull();
      // The config's readable experiment still reads the same attribute.
      expect(client.assign('plain', 'u1', attributes)).toBe('on');
    }
    // "aaa" would match the pattern were it run: it is not.
    expect(client.assign('hostile', 'u1', { name: 'aaa' })).toBeNull();
    expect(logger.lines.filter((l) => l.startsWith('error'))).toEqual([]);
  });
});
