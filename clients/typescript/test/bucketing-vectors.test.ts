import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Arbiter } from '../src/index.ts';
import { type ConfigDoc, type FakeArbiter, startFakeArbiter } from './support/fake-arbiter.ts';
import { memoryLogger } from './support/logger.ts';

interface BucketCase {
  salt: string;
  user_id: string;
  bucket_count: number;
  bucket: number;
}

// The one shared copy of the vectors (STYLE 11); never copied into this folder.
const vectors = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../testdata/bucketing.json', import.meta.url)), 'utf8'),
) as { specVersion: string; cases: BucketCase[] };

/**
 * One experiment per case, whose ranges give bucket b the variant `b<b>` and every other bucket
 * a decoy: assign() returns `b<expected>` only if the client's whole path (config, name lookup,
 * hash, modulo, range search) lands on the expected bucket.
 */
function configFor(cases: BucketCase[]): ConfigDoc {
  return {
    config_version: 1,
    bucketing_version: vectors.specVersion,
    experiments: cases.map((c, i) => {
      const ranges = [];
      if (c.bucket > 0) ranges.push({ variant: 'below', start: 0, end: c.bucket });
      ranges.push({ variant: `b${c.bucket}`, start: c.bucket, end: c.bucket + 1 });
      if (c.bucket + 1 < c.bucket_count) {
        ranges.push({ variant: 'above', start: c.bucket + 1, end: c.bucket_count });
      }
      return {
        id: `id-${i}`,
        name: `case-${i}`,
        salt: c.salt,
        bucket_count: c.bucket_count,
        ranges,
        variants: ranges.map((r) => ({ key: r.variant })),
      };
    }),
  };
}

let fake: FakeArbiter;
let client: Arbiter;

beforeAll(async () => {
  fake = await startFakeArbiter({ config: configFor(vectors.cases) });
  client = new Arbiter({
    apiKey: fake.apiKey,
    baseUrl: fake.baseUrl,
    trackExposures: false,
    logger: memoryLogger(),
  });
  expect(await client.ready()).toBe(true);
});
afterAll(async () => {
  await client.close();
  await fake.close();
});

describe('testdata/bucketing.json through assign()', () => {
  it('has cases', () => {
    expect(vectors.cases.length).toBeGreaterThan(300);
  });
  vectors.cases.forEach((c, i) => {
    it(`case ${i}: bucket_count ${c.bucket_count}, bucket ${c.bucket}`, () => {
      expect(client.assign(`case-${i}`, c.user_id)).toBe(`b${c.bucket}`);
      expect(client.assign(`id-${i}`, c.user_id)).toBe(`b${c.bucket}`);
    });
  });
});
