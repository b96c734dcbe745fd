import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * Dataset uploads are bulk work, gated per org as imports are: past the limit (1 here) an
 * upload is refused with 429 and Retry-After, stores nothing, and another org's upload runs.
 */
let h: Harness;
let busy: Awaited<ReturnType<Harness['org']>>;
let other: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness({ ARBITER_IMPORT_CONCURRENCY_PER_ORG: '1' });
  busy = await h.org('busy_uploader');
  other = await h.org('other_uploader');
});
afterAll(() => h.close());

const ROWS = 3000;
const csv = (tag: string) =>
  [
    'id,input,expected_output',
    ...Array.from({ length: ROWS }, (_, i) => `${tag}-${i},question ${i} ${'x'.repeat(200)},a`),
  ].join('\n');

async function dataset(token: string, name: string): Promise<string> {
  const res = await h.call(token, { method: 'POST', url: '/v1/datasets', payload: { name } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

const upload = (token: string, id: string, tag: string) =>
  h.call(token, {
    method: 'POST',
    url: `/v1/datasets/${id}/items`,
    headers: { 'content-type': 'text/csv' },
    payload: csv(tag),
  });

describe('dataset uploads at once per org', () => {
  it('refuses an upload past the per-org limit with 429 and Retry-After, stores nothing of it, and leaves other orgs alone', async () => {
    const mine = await dataset(busy.admin, 'gated');
    const theirs = await dataset(other.admin, 'neighbour');
    const [a, b, neighbour] = await Promise.all([
      upload(busy.admin, mine, 'a'),
      upload(busy.admin, mine, 'b'),
      upload(other.admin, theirs, 'c'),
    ]);
    // Whichever reaches the gate first runs; the other is refused before reading a row.
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 429]);
    const [first, second] = a.statusCode === 200 ? [a, b] : [b, a];
    expect(first.json()).toMatchObject({ items: ROWS, errors: [], version: 2 });
    expect(neighbour.statusCode).toBe(200);
    expect(neighbour.json()).toMatchObject({ items: ROWS, version: 2 });
    expect(second.headers['retry-after']).toBe('5');
    expect(second.json()).toEqual({
      type: '/problems/import-concurrency-limit',
      title: 'Too many imports at once',
      status: 429,
      detail:
        'Your org already runs 1 dataset upload at once, the most allowed; send this one again when one of them has answered',
      instance: expect.any(String),
      limit: 1,
    });
    // Nothing of the refused upload was stored: the dataset holds the first upload's version.
    const got = await h.call(busy.admin, { method: 'GET', url: `/v1/datasets/${mine}` });
    expect(got.json()).toMatchObject({ version: 2, item_count: ROWS });
    // Once the first has answered, the org may upload again.
    expect((await upload(busy.admin, mine, 'again')).statusCode).toBe(200);
  });
});
