import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshDatabase } from './support/database.ts';
import { startOtlpReceiver } from './support/otlp-receiver.ts';
import { ARBITER_BIN, devEnv } from './support/process.ts';
import { describeTracedServer } from './support/traced-server.ts';

// The statements of a PostgreSQL server pass through its pool: the same span tree as on the
// embedded database, with transactions' BEGIN and COMMIT as statements of their own, and the
// COPY that stores events.
describeTracedServer(
  'traces exported to an OTLP endpoint (PostgreSQL)',
  async () => {
    const database = await freshDatabase();
    if (database.url === null) throw new Error('run with ARBITER_TEST_DB=postgres');
    // The server process uses it; this process drops it at the end.
    return { env: { ARBITER_DATABASE_URL: database.url }, drop: () => database.close() };
  },
  { postgresServer: true },
);

/** Runs `arbiter` to its end without blocking this process (the receiver answers meanwhile). */
function runArbiter(args: string[], env: Record<string, string>): Promise<number | null> {
  const child = spawn(process.execPath, [ARBITER_BIN, ...args], {
    env: { ...process.env, ARBITER_LOG_LEVEL: 'warn', ...env },
    stdio: 'ignore',
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('arbiter pipeline run on PostgreSQL, outside any server', () => {
  it('exports the run it makes itself before it exits', async () => {
    const receiver = await startOtlpReceiver();
    const database = await freshDatabase();
    try {
      const code = await runArbiter(['pipeline', 'run', '--day', '2026-11-20'], {
        ...devEnv(mkdtempSync(join(tmpdir(), 'arbiter-traces-cli-'))),
        ARBITER_DATABASE_URL: database.url ?? '',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'arbiter-pipeline',
      });
      expect(code).toBe(0);
      const run = receiver.spans.filter((s) => s.name === 'arbiter.nightly_run');
      expect(run).toHaveLength(1);
      expect(run[0]?.parentSpanId).toBe('');
      expect(run[0]?.serviceName).toBe('arbiter-pipeline');
      expect(run[0]?.attributes['arbiter.run.day']).toBe('2026-11-20');
      const statements = receiver.spans.filter((s) => s.parentSpanId === run[0]?.spanId);
      expect(statements.length).toBeGreaterThan(0);
    } finally {
      await receiver.close();
      await database.close();
    }
  });
});
