import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.ts';

/**
 * The lifecycle migration over an experiment stored before it: the database is taken back to
 * how an older server left it (the lifecycle columns dropped), then the migration's own
 * statements run again, as the migrator runs them. Later migrations stay applied, so the test
 * does not depend on which migration is the newest. The experiment is running, and assigns
 * every user as before.
 */
const MIGRATION = fileURLToPath(
  new URL('../../src/db/migrations/0027_experiment_lifecycle.sql', import.meta.url),
);
const statementsOf = (file: string) =>
  readFileSync(file, 'utf8')
    .split('--> statement-breakpoint')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
const COLUMNS = [
  'status',
  'archived_from',
  'stop_conclusion',
  'served_variant',
  'stop_reason',
  'stopped_at',
  'stopped_by',
];

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('lifecycle-migration');
});
afterAll(() => h.close());

const USERS = Array.from({ length: 100 }, (_, i) => `user-${i}`);
const assignAll = (name: string) =>
  Promise.all(
    USERS.map(async (u) => {
      const res = await h.ingest(acme.secret, {
        method: 'POST',
        url: '/v1/assign',
        payload: { experiment_id: name, user_id: u },
      });
      const { config_version: _, ...answer } = res.json();
      return answer;
    }),
  );

describe('the experiment lifecycle migration', () => {
  it('makes an experiment stored before it running, assigning as before', async () => {
    const id = await h.experiment(acme.admin, { name: 'from-before' });
    const before = await assignAll('from-before');
    const db = h.ctx.db;
    for (const column of COLUMNS)
      await db.execute(sql.raw(`ALTER TABLE "experiments" DROP COLUMN "${column}"`));
    await db.execute(sql`ALTER TABLE "analysis_runs" DROP COLUMN "final"`);
    for (const statement of statementsOf(MIGRATION)) await db.execute(sql.raw(statement));
    h.ctx.orgState.clear();

    const got = (await h.call(acme.admin, { method: 'GET', url: `/v1/experiments/${id}` })).json();
    expect({ status: got.status, stop: got.stop }).toEqual({ status: 'running', stop: null });
    // served as before: no status, which means running
    const config = (await h.ingest(acme.secret, { method: 'GET', url: '/v1/config' })).json();
    const entry = config.experiments.find((e: { id: string }) => e.id === id);
    expect(entry).toBeDefined();
    expect(entry.status).toBeUndefined();
    const after = await assignAll('from-before');
    expect(after).toEqual(before);
    expect(after.filter((a) => a.variant !== null).length).toBeGreaterThan(50);
  });
});
