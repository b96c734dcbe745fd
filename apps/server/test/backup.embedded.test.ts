import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, rows } from '../src/db/connect.ts';
import { experimentConfig } from './support/harness.ts';
import {
  devEnv,
  freePort,
  type RunningServer,
  runCli,
  runCliAsync,
  startServer,
} from './support/process.ts';

// `arbiter backup` while a client sends events without pause, `arbiter restore` into a new data
// dir, a server started there: the experiment, the key, the runs and every event acknowledged
// before the backup began are there.

const BATCH = 100;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Servers still running when a test ends (it failed half-way) are stopped, not left behind. */
const running = new Set<RunningServer>();
/** Whether the test's client keeps sending events. */
let sending = false;
afterEach(() => {
  sending = false;
  for (const server of running) if (server.child.exitCode === null) server.child.kill('SIGKILL');
  running.clear();
});

async function serverOn(
  dataDir: string,
): Promise<{ server: RunningServer; env: Record<string, string>; base: string }> {
  const port = await freePort();
  const env = {
    ...devEnv(dataDir),
    ARBITER_PORT: String(port),
    ARBITER_SHUTDOWN_DELAY_SECONDS: '0',
    // The free plan's monthly allowance would refuse a long stream of events.
    ARBITER_ENFORCE_LIMITS: 'false',
  };
  const server = await startServer(env);
  running.add(server);
  return { server, env, base: `http://127.0.0.1:${port}` };
}

async function stop(server: RunningServer): Promise<void> {
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
}

function sessionOf(env: Record<string, string>) {
  const token = runCli(
    ['token', '--email', 'ops@example.com', '--org', 'backup-org', '--role', 'admin'],
    env,
  ).stdout;
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
}

async function stored(dataDir: string) {
  const database = await openDatabase({ kind: 'pglite', dataDir });
  try {
    const events = await rows<{ event_id: string }>(database.db, sql`select event_id from events`);
    const runs = await rows<{ label: string }>(database.db, sql`select label from analysis_runs`);
    return {
      events: new Set(events.map((r) => r.event_id)),
      runs: runs.map((r) => r.label).sort(),
    };
  } finally {
    await database.close();
  }
}

/** Names and sizes of every file under `dir`: what "changes nothing" compares. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => `${join(e.parentPath, e.name)}:${readFileSync(join(e.parentPath, e.name)).length}`)
    .sort();
}

describe('arbiter backup and arbiter restore', () => {
  it('restores every event acknowledged before a backup taken while events flow', async () => {
    const work = mkdtempSync(join(tmpdir(), 'arbiter-backup-'));
    const first = await serverOn(join(work, 'live'));
    const session = sessionOf(first.env);
    const created = await fetch(`${first.base}/v1/experiments`, {
      method: 'POST',
      headers: session,
      body: JSON.stringify(experimentConfig({ name: 'backed-up' })),
    });
    const experimentId = ((await created.json()) as { id: string }).id;
    const keyed = await fetch(`${first.base}/v1/keys`, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ scope: 'secret' }),
    });
    const key = ((await keyed.json()) as { key: string }).key;

    // Two manual runs, stored for good under their labels.
    const labels: string[] = [];
    for (let i = 0; i < 2; i++) {
      const run = await fetch(`${first.base}/v1/experiments/${experimentId}/analyze`, {
        method: 'POST',
        headers: { authorization: session.authorization },
      });
      expect(run.status).toBe(200);
      labels.push(((await run.json()) as { computed_for: string }).computed_for);
    }

    const acknowledged = new Set<string>();
    let batches = 0;
    const sender = async () => {
      while (sending) {
        const first_ = batches++ * BATCH;
        const ids = Array.from({ length: BATCH }, (_, i) => `ev-${first_ + i}`);
        const res = await fetch(`${first.base}/v1/events`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({
            events: ids.map((id, i) => ({
              event_id: id,
              type: 'exposure',
              experiment_id: experimentId,
              user_id: `user-${(first_ + i) % 389}`,
              timestamp: new Date().toISOString(),
            })),
          }),
        });
        expect(res.status).toBe(202);
        for (const id of ids) acknowledged.add(id);
        // A client's pace, not a flood: the backup shares the server (and this machine) with it.
        await pause(10);
      }
    };
    sending = true;
    const senders = Promise.all([sender(), sender()]);
    await expect
      .poll(() => acknowledged.size, { timeout: 60_000, interval: 20 })
      .toBeGreaterThan(2000);

    const before = new Set(acknowledged);
    const out = join(work, 'arbiter.tar.gz');
    const backup = await runCliAsync(['backup', '--out', out], first.env);
    const during = acknowledged.size - before.size;
    sending = false;
    await senders;
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.stdout).toMatch(
      new RegExp(
        `^backup written to ${out} \\(\\d+ bytes\\), made by the running server \\(process ${first.server.child.pid}\\)$`,
      ),
    );
    // The events did flow while the backup was taken.
    expect(during).toBeGreaterThan(0);
    await stop(first.server);

    const restoredDir = join(work, 'restored');
    const restored = runCli(['restore', '--from', out], devEnv(restoredDir));
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toMatch(
      /^restored .*: 1 experiments, \d+ stored events; start the server on it/,
    );

    const second = await serverOn(restoredDir);
    const ready = await fetch(`${second.base}/readyz`);
    expect(ready.status).toBe(200);
    const listed = await fetch(`${second.base}/v1/experiments`, { headers: sessionOf(second.env) });
    expect(
      ((await listed.json()) as Array<{ id: string; name: string }>).map((e) => [e.id, e.name]),
    ).toEqual([[experimentId, 'backed-up']]);
    // The key still authenticates: the config it reads names the experiment.
    const config = await fetch(`${second.base}/v1/config`, { headers: { 'x-api-key': key } });
    expect(config.status).toBe(200);
    expect(JSON.stringify(await config.json())).toContain(experimentId);
    await stop(second.server);

    const inBackup = await stored(restoredDir);
    expect(before.size).toBeGreaterThan(2000);
    expect([...before].filter((id) => !inBackup.events.has(id))).toEqual([]);
    expect(inBackup.runs).toEqual(labels.sort());

    // No server runs now: the command opens the data dir itself, and has everything.
    const offline = join(work, 'offline.tar.gz');
    const cold = runCli(['backup', '--out', offline], first.env);
    expect(cold.code).toBe(0);
    expect(cold.stdout).toContain('made from the data dir');
    const coldDir = join(work, 'cold');
    expect(runCli(['restore', '--from', offline], devEnv(coldDir)).code).toBe(0);
    const all = await stored(join(work, 'live'));
    const inCold = await stored(coldDir);
    expect(inCold.events.size).toBe(acknowledged.size);
    expect([...all.events].filter((id) => !inCold.events.has(id))).toEqual([]);
  }, 300_000);

  it('refuses a non-empty data dir, a file that is not a backup and a PostgreSQL server, changing nothing', async () => {
    const work = mkdtempSync(join(tmpdir(), 'arbiter-restore-'));
    const full = join(work, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'keep.txt'), 'mine');
    const garbage = join(work, 'garbage.tar.gz');
    writeFileSync(garbage, 'not a backup');

    const refused = runCli(['restore', '--from', garbage], devEnv(full));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `arbiter: restore: the data dir ${full} is not empty (it holds keep.txt); restore into an empty or new directory (ARBITER_DATA_DIR); nothing was changed\n`,
    );
    expect(tree(full)).toEqual([`${join(full, 'keep.txt')}:4`]);

    const fresh = join(work, 'fresh');
    const notBackup = runCli(['restore', '--from', garbage], devEnv(fresh));
    expect(notBackup.code).toBe(1);
    expect(notBackup.stderr).toMatch(
      new RegExp(`^arbiter: restore: ${garbage} is not a gzipped backup`),
    );
    expect(readdirSync(work).sort()).toEqual(['full', 'garbage.tar.gz']);

    const onPostgres = {
      ...devEnv(fresh),
      ARBITER_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    };
    for (const args of [
      ['backup', '--out', join(work, 'x.tar.gz')],
      ['restore', '--from', garbage],
    ]) {
      const result = runCli(args, onPostgres);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `arbiter: ${args[0]}: ARBITER_DATABASE_URL is set: \`arbiter backup\` and \`arbiter restore\` copy only the embedded PGlite database; back up a PostgreSQL server with pg_dump or a base backup (docs/operations.md#backups)\n`,
      );
    }
    expect(readdirSync(work).sort()).toEqual(['full', 'garbage.tar.gz']);
  }, 120_000);
});
