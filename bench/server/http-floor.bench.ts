/**
 * The least any Node.js server pays for the ingest benchmark's requests: a bare `node:http`
 * server that reads each body, parses its JSON and answers 202, fed by the same senders and
 * batches as `ingest-throughput.bench.ts` (400,000 model calls, 100 a request, 8 at once).
 * Prints that server's CPU per event, beside which to read the `arbiter` server's figure there.
 *
 *   npx tsx bench/server/http-floor.bench.ts
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { modelCallsForUsers } from '../../apps/server/test/support/builders.ts';
import { cpuSecondsOf, postEvents } from './setup.ts';

const EVENTS = 400_000;
const PER_BATCH = 100;
const SENDERS = 8;

if (process.argv[2] === 'serve') {
  const server = createServer((request, reply) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events: unknown[] };
      reply.writeHead(202, { 'content-type': 'application/json' });
      reply.end(JSON.stringify({ accepted: body.events.length, duplicates: 0 }));
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address !== null && typeof address === 'object') process.send?.(address.port);
  });
} else {
  const child = fork(fileURLToPath(import.meta.url), ['serve'], { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve) =>
    child.once('message', (m) => resolve(Number(m))),
  );
  const url = `http://127.0.0.1:${port}/v1/events`;
  const experimentId = '00000000-0000-0000-0000-000000000001';
  const batch = (b: number) =>
    JSON.stringify({
      events: modelCallsForUsers(experimentId, PER_BATCH, {
        prefix: `api-${b}`,
        userOf: (i) => `user-${(b * PER_BATCH + i) % 50_000}`,
      }),
    });
  try {
    await postEvents(url, 'key', batch(0)); // warm-up
    const before = cpuSecondsOf(child.pid);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        while (next < EVENTS / PER_BATCH) {
          const status = await postEvents(url, 'key', batch(next++));
          if (status !== 202) throw new Error(`status ${status}`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = ((cpuSecondsOf(child.pid) - before) * 1e6) / EVENTS;
    console.log(`bare node:http server: ${cpu.toFixed(1)} µs of CPU an event`);
    console.log(`answered: ${Math.round(EVENTS / seconds).toLocaleString()} events/s`);
  } finally {
    child.kill();
  }
}
