import pg from 'pg';
import { modelCallsForUsers } from '../../apps/server/test/support/builders.ts';
import { postEvents, untilFolded } from '../server/setup.ts';
import type { Deployment } from './deployment.ts';
import { componentCpuSeconds, ownCpuSeconds } from './process-cpu.ts';

const CONCURRENCY = 8;
const PROMPT_CHARS = Number(process.env.BENCH_PROMPT_CHARS ?? 1000);
const RESPONSE_CHARS = Number(process.env.BENCH_RESPONSE_CHARS ?? 300);
/** Looks (100 ms apart) for the events to be stored and folded; past them the fold is stuck. */
const FOLD_LOOKS = { looks: 30_000, everyMs: 100 };

/** Text of `n` characters that differs from event to event (no two prompts compress alike). */
function text(seed: string, n: number): string {
  let out = '';
  while (out.length < n)
    out += `${seed} the user asks about order ${out.length} and the assistant answers. `;
  return out.slice(0, n);
}

/** Batch `b` of `size` model calls, each with a prompt and a response. */
function batch(experimentId: string, prefix: string, b: number, size: number) {
  return modelCallsForUsers(experimentId, size, {
    prefix: `${prefix}-${b}`,
    userOf: (i) => `user-${(b * size + i) % 50_000}`,
  }).map((e) => ({
    ...e,
    prompt: text(e.event_id, PROMPT_CHARS),
    response: text(e.user_id, RESPONSE_CHARS),
  }));
}

/** Batches a 503 sent again, as a client library would: their CPU is part of the cost. */
export const retried = { count: 0 };
const RETRIES = 20;

/**
 * POSTs a batch until it is a 202; a 503 (the object store or the brokers too slow on a loaded
 * host) or a reset connection is sent again after a second, anything else ends the run.
 */
async function deliver(url: string, key: string, body: string): Promise<void> {
  for (let attempt = 0; attempt < RETRIES; attempt++) {
    // A keep-alive socket the server closed as the request went out: sent again, as a client would.
    const status = await postEvents(url, key, body).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return 503;
      throw error;
    });
    if (status === 202) return;
    if (status !== 503) throw new Error(`POST /v1/events answered ${status}`);
    retried.count++;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`POST /v1/events answered 503 ${RETRIES} times`);
}

/** `total` events in batches of `size`, CONCURRENCY senders spread over the API processes. */
async function send(d: Deployment, prefix: string, total: number, size: number): Promise<void> {
  let next = 0;
  const batches = Math.ceil(total / size);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, k) => {
      const url = d.urls[k % d.urls.length] as string;
      while (next < batches) {
        const b = next++;
        const body = JSON.stringify({ events: batch(d.experimentId, prefix, b, size) });
        await deliver(`${url}/v1/events`, d.key, body);
      }
    }),
  );
}

export interface Measured {
  /** CPU µs per accepted-and-folded event, per component: all it spent over the stretch. */
  perEvent: Record<string, number>;
  total: number;
  /** The same less what the component spends idle (`idle` × the stretch's seconds). */
  netPerEvent: Record<string, number>;
  netTotal: number;
  /** CPU ms a second each component spends with nothing to do (all its processes). */
  idle: Record<string, number>;
  eventsPerSecond: number;
}

/** Seconds of quiet before each stretch, for each component's idle CPU. */
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 5);

async function idleCpu(d: Deployment): Promise<Record<string, number>> {
  const before = componentCpuSeconds(d.roots);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  const after = componentCpuSeconds(d.roots);
  const seconds = (performance.now() - started) / 1000;
  const out: Record<string, number> = {};
  for (const c of Object.keys(d.roots))
    out[c] = (((after[c] ?? 0) - (before[c] ?? 0)) * 1000) / seconds;
  return out;
}

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

/**
 * One warm-up batch folded, then `total` events in batches of `size`, accepted and folded: each
 * component's CPU over that stretch per event. The looks that wait for the fold are a backend
 * of their own, whose CPU is taken out of PostgreSQL's; the senders' CPU is not measured.
 */
export async function measure(d: Deployment, size: number, total: number): Promise<Measured> {
  const client = new pg.Client({ connectionString: d.databaseUrl });
  await client.connect();
  try {
    const looker = (await client.query('select pg_backend_pid() as pid')).rows[0].pid as number;
    const { rows } = await client.query('select count(*)::int as n from events');
    const already = rows[0].n as number;
    const tag = `s${size}-${Math.random().toString(36).slice(2, 8)}`;
    await send(d, `${tag}-warm`, size, size);
    await untilFolded(client, already + size, FOLD_LOOKS);
    // The looker waits too, so its backend is as idle as the rest.
    const idle = await idleCpu(d);
    const before = componentCpuSeconds(d.roots);
    const lookerBefore = ownCpuSeconds(looker);
    const started = performance.now();
    await send(d, tag, total, size);
    await untilFolded(client, already + size + Math.ceil(total / size) * size, FOLD_LOOKS);
    const seconds = (performance.now() - started) / 1000;
    const after = componentCpuSeconds(d.roots);
    const lookerCpu = ownCpuSeconds(looker) - lookerBefore;
    const perEvent: Record<string, number> = {};
    const netPerEvent: Record<string, number> = {};
    for (const c of Object.keys(d.roots)) {
      const cpu = (after[c] ?? 0) - (before[c] ?? 0) - (c === 'postgres' ? lookerCpu : 0);
      perEvent[c] = (cpu * 1e6) / total;
      netPerEvent[c] = ((cpu - ((idle[c] ?? 0) / 1000) * seconds) * 1e6) / total;
    }
    return {
      perEvent,
      total: sum(perEvent),
      netPerEvent,
      netTotal: sum(netPerEvent),
      idle,
      eventsPerSecond: total / seconds,
    };
  } finally {
    await client.end();
  }
}

/** Bytes an event takes in the database, by table (with its indexes and TOAST). */
export async function bytesPerRow(databaseUrl: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('vacuum analyze');
    const { rows } = await client.query<{ t: string; bytes: string; n: string }>(
      `select t, pg_total_relation_size(t::regclass) as bytes, n from (values
         ('events', (select count(*) from events)),
         ('event_claims', (select count(*) from event_claims)),
         ('user_day_stats', (select count(*) from user_day_stats))) v(t, n)`,
    );
    const out: Record<string, number> = {};
    for (const r of rows) out[r.t] = Number(r.n) === 0 ? 0 : Number(r.bytes) / Number(r.n);
    return out;
  } finally {
    await client.end();
  }
}
