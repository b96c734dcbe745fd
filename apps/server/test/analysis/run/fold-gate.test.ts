import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.ts';
import { exposuresForUsers } from '../../support/builders.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { SCALE_OUT_PARTITIONS, scaleOutMode } from '../../support/scale-out-env.ts';

// No fold worker runs in the harness: what the fold has not taken yet stays unfolded until
// someone folds it, as when the worker is behind.

let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  org = await h.org('gate');
});
afterAll(() => h.close());

const send = (events: object[]) =>
  h.ingest(org.secret, { method: 'POST', url: '/v1/events', payload: { events } });

async function foldedThroughOf(experimentId: string) {
  return rows<{ label: string; folded_through: Date | string | null }>(
    h.ctx.db,
    sql`select label, folded_through from analysis_runs where experiment_id = ${experimentId}::uuid`,
  );
}

describe('the fold gate before an analysis', () => {
  it('a manual run counts every event accepted before it, though the fold had not taken them yet, and stores the fold position it saw', async () => {
    const exp = await h.experiment(org.admin, { name: 'gate-manual', metrics: [] });
    expect((await send(exposuresForUsers(exp, 600, { prefix: 'g' }))).statusCode).toBe(202);
    // On Kafka what waits is an envelope per partition the 600 users fall in: every one.
    expect(await h.ctx.eventLog.depth()).toBe(scaleOutMode() ? SCALE_OUT_PARTITIONS : 600);
    const before = Date.now();
    const res = await h.call(org.admin, { method: 'POST', url: `/v1/experiments/${exp}/analyze` });
    expect(res.statusCode).toBe(200);
    const arms = res.json().arms as Record<string, { users: number }>;
    expect(Object.values(arms).reduce((sum, a) => sum + a.users, 0)).toBe(600);
    expect(await h.ctx.eventLog.depth()).toBe(0);
    const [stored] = await foldedThroughOf(exp);
    expect(stored?.label).toBe(res.json().computed_for);
    expect(stored?.folded_through).not.toBeNull();
    // the position is an instant from this run, not a placeholder
    expect(new Date(stored?.folded_through as string).getTime()).toBeGreaterThan(before - 60_000);
  });

  it('the nightly run counts them too and stores the position on every run of the day', async () => {
    const exp = await h.experiment(org.admin, { name: 'gate-nightly', metrics: [] });
    expect((await send(exposuresForUsers(exp, 500, { prefix: 'n' }))).statusCode).toBe(202);
    const day = new Date().toISOString().slice(0, 10);
    const run = await h.app.inject({
      method: 'POST',
      url: '/v1/admin/pipeline/run',
      headers: { 'x-arbiter-control': h.ctx.controlToken },
      payload: { day },
    });
    expect(run.statusCode).toBe(200);
    const results = await h.call(org.admin, {
      method: 'GET',
      url: `/v1/experiments/${exp}/results?day=${day}`,
    });
    expect(results.statusCode).toBe(200);
    const arms = results.json().arms as Record<string, { users: number }>;
    expect(Object.values(arms).reduce((sum, a) => sum + a.users, 0)).toBe(500);
    const [stored] = await foldedThroughOf(exp);
    expect(stored?.folded_through).not.toBeNull();
  });
});
