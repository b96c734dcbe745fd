import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, experiments } from '../../src/db/schema.ts';
import { utcDay } from '../../src/kernel/utc-day.ts';
import { freshDatabase } from '../support/database.ts';
import {
  devEnv,
  freePort,
  type RunningServer,
  runCliAsync,
  startServer,
} from '../support/process.ts';

/**
 * `arbiter demo` against a server whose event data is on two PostgreSQL shards: the seed goes
 * through the API, so its users land on both shards, none in the control database, and the
 * pipeline's results and the export read them all.
 */
let control: Awaited<ReturnType<typeof freshDatabase>>;
let shards: Array<typeof control>;
let env: Record<string, string>;
let server: RunningServer;

beforeAll(async () => {
  control = await freshDatabase();
  shards = [await freshDatabase(), await freshDatabase()];
  env = {
    ...devEnv(mkdtempSync(join(tmpdir(), 'arbiter-demo-shards-'))),
    ARBITER_DATABASE_URL: control.url as string,
    ARBITER_SHARD_URLS: shards.map((s) => s.url as string).join(','),
    // the demo finds a server with a database by its port
    ARBITER_PORT: String(await freePort()),
  };
  server = await startServer(env);
}, 120_000);
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  for (const shard of shards ?? []) await shard.close();
  await control?.close();
});

async function eventsIn(db: typeof control.db, experimentId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(events)
    .where(eq(events.experimentId, experimentId));
  return Number(row?.n ?? 0);
}

describe('arbiter demo on two shards', () => {
  it('seeds users on both shards, and the results and the export read them all', async () => {
    const run = await runCliAsync(['demo'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const token = (
      await runCliAsync(
        ['token', '--email', 'demo@example.com', '--org', 'arbiter-demo', '--role', 'admin'],
        env,
      )
    ).stdout;
    const get = (path: string) =>
      fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

    const [checkout] = await control.db
      .select({ id: experiments.id })
      .from(experiments)
      .where(eq(experiments.name, 'demo-checkout-prompt'));
    const id = checkout?.id as string;
    const perShard = await Promise.all(shards.map((s) => eventsIn(s.db, id)));
    expect(perShard.every((n) => n > 0)).toBe(true);
    expect(await eventsIn(control.db, id)).toBe(0);

    const results = await get('/v1/experiments/demo-checkout-prompt/results');
    expect(results.status).toBe(200);
    const body = (await results.json()) as {
      results: Record<string, { significant: boolean }>;
      arms: Record<string, { events: number }>;
    };
    expect(body.results['checkout::concise']?.significant).toBe(true);

    // The demo's traffic is today's (UTC), conversions by the import included.
    const exported = await get(`/v1/events/export?experiment=${id}&day=${utcDay(new Date())}`);
    expect(exported.status).toBe(200);
    const lines = (await exported.text()).trimEnd().split('\n');
    expect(lines).toHaveLength(perShard.reduce((a, b) => a + b, 0));
  }, 180_000);
});
