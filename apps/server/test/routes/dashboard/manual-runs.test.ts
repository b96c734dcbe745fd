import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.ts';
import { exposuresForUsers } from '../../support/builders.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

// As many as the burst that once stored 74 runs for 80 calls, and some past the limit.
const LIMIT = 80;
const CALLS = 90;

// Every call sees the same instant, as calls landing in one millisecond do.
const INSTANT = new Date();

let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;
let exp: string;

beforeAll(async () => {
  h = await startHarness(
    { ARBITER_MANUAL_RUNS_PER_HOUR: String(LIMIT) },
    { clock: { now: () => new Date(INSTANT) } },
  );
  org = await h.org('manual');
  exp = await h.experiment(org.admin, { name: 'manual-burst', metrics: [] });
  const sent = await h.ingest(org.secret, {
    method: 'POST',
    url: '/v1/events',
    payload: { events: exposuresForUsers(exp, 600, { prefix: 'm' }) },
  });
  expect(sent.statusCode).toBe(202);
  await h.ctx.worker.foldAll();
});
afterAll(() => h.close());

describe('manual runs called at once', () => {
  it('each stored run has its own label and stays readable; past the hourly limit 429 with Retry-After', async () => {
    const answers = await Promise.all(
      Array.from({ length: CALLS }, () =>
        h.call(org.admin, { method: 'POST', url: `/v1/experiments/${exp}/analyze` }),
      ),
    );
    const ran = answers.filter((a) => a.statusCode === 200);
    const refused = answers.filter((a) => a.statusCode === 429);
    expect(ran).toHaveLength(LIMIT);
    expect(refused).toHaveLength(CALLS - LIMIT);

    const labels = ran.map((a) => a.json().computed_for as string);
    expect(new Set(labels).size).toBe(LIMIT);
    for (const label of labels)
      expect(label).toMatch(/^manual-\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    for (const answer of ran) {
      const label = answer.json().computed_for as string;
      const kept = await h.call(org.admin, {
        method: 'GET',
        url: `/v1/experiments/${exp}/results?day=${encodeURIComponent(label)}`,
      });
      expect(kept.statusCode).toBe(200);
      expect(kept.json().computed_for).toBe(label);
      expect(kept.json().arms).toEqual(answer.json().arms);
    }
    const [stored] = await rows<{ n: number }>(
      h.ctx.db,
      sql`select count(*)::int as n from analysis_runs where experiment_id = ${exp}::uuid and kind = 'manual'`,
    );
    expect(stored?.n).toBe(LIMIT);
    const listed = (
      await h.call(org.admin, { method: 'GET', url: `/v1/experiments/${exp}/results` })
    ).json().available_days as string[];
    expect(listed.filter((d) => d.startsWith('manual-')).sort()).toEqual([...labels].sort());

    for (const answer of refused) {
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      const retryAfter = Number(answer.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(answer.json()).toMatchObject({ type: '/problems/manual-run-limit', status: 429 });
    }
  });
});
