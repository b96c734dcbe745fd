import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
let admin: string;
let id: string;
const VERSIONS = 25;

beforeAll(async () => {
  h = await startHarness();
  ({ admin } = await h.org('versions-org'));
  id = await h.experiment(admin, { name: 'many-versions' });
  for (let v = 2; v <= VERSIONS; v++) {
    const res = await h.call(admin, {
      method: 'PUT',
      url: `/v1/experiments/${id}`,
      payload: { description: `v${v}` },
    });
    expect(res.statusCode).toBe(200);
  }
});
afterAll(() => h.close());

const get = (url: string) => h.call(admin, { method: 'GET', url });
const numbers = (body: { version: number }[]) => body.map((v) => v.version);
const range = (from: number, to: number) =>
  Array.from({ length: from - to + 1 }, (_, i) => from - i);

describe('GET /v1/experiments/{id}/versions, a page at a time', () => {
  it('answers the newest 20 by default, with has_more and a link to the next page', async () => {
    const res = await get(`/v1/experiments/${id}/versions`);
    expect(res.statusCode).toBe(200);
    expect(numbers(res.json())).toEqual(range(25, 6));
    expect(res.headers['arbiter-has-more']).toBe('true');
    expect(res.headers.link).toBe(
      `</v1/experiments/${id}/versions?limit=20&starting_after=6>; rel="next"`,
    );
  });

  it('walks every version with starting_after, and back with ending_before', async () => {
    const seen: number[] = [];
    let after: number | undefined;
    // 25 versions in pages of 7: four pages; a fifth would mean the walk never ends.
    for (let pages = 0; pages < 5; pages++) {
      const res = await get(
        `/v1/experiments/${id}/versions?limit=7${after === undefined ? '' : `&starting_after=${after}`}`,
      );
      const page = numbers(res.json());
      seen.push(...page);
      if (res.headers['arbiter-has-more'] === 'false') break;
      after = page[page.length - 1];
    }
    expect(seen).toEqual(range(25, 1));
    const back = await get(`/v1/experiments/${id}/versions?limit=3&ending_before=10`);
    expect(numbers(back.json())).toEqual([13, 12, 11]);
    expect(back.headers['arbiter-has-more']).toBe('true');
    const top = await get(`/v1/experiments/${id}/versions?limit=3&ending_before=22`);
    expect(numbers(top.json())).toEqual([25, 24, 23]);
    expect(top.headers['arbiter-has-more']).toBe('false');
  });

  it('refuses a limit past 100, a non-number cursor and both cursors at once', async () => {
    for (const query of [
      'limit=101',
      'limit=0',
      'starting_after=x',
      'starting_after=3&ending_before=1',
    ]) {
      const res = await get(`/v1/experiments/${id}/versions?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().type).toBe('/problems/validation-error');
    }
  });

  it('reads any retained version by its number, and 404s one that does not exist', async () => {
    const first = await get(`/v1/experiments/${id}/versions/1`);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ id, version: 1, name: 'many-versions' });
    const byName = await get('/v1/experiments/many-versions/versions/17');
    expect(byName.json()).toMatchObject({ version: 17, description: 'v17' });
    const missing = await get(`/v1/experiments/${id}/versions/26`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().detail).toBe(`Experiment "${id}" has no version 26 (its latest is 25)`);
  });
});
