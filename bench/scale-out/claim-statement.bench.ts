/**
 * PostgreSQL's CPU per event for the Kafka path's claim-and-meter statement alone, in the forms
 * it was measured in (bench/scale-out/kafka-path.md has the results): batches of 100 new ids
 * claimed by one backend into a fresh database's `event_claims` (as migrations 0001 and 0021
 * make it and `usage_counters`), the backend's CPU read from /proc/<pid>/stat. The table grows
 * as a new deployment's does, with no statistics until autovacuum analyses it.
 *
 *   ARBITER_TEST_DATABASE_URL=postgres://… npx tsx bench/scale-out/claim-statement.bench.ts
 *   knobs: BENCH_BATCHES (400 batches of 100 measured, after 30 unmeasured), BENCH_ROUNDS (3),
 *          BENCH_FORMS ("scan,probe,insert,probe-bytea")
 */
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { cpuSecondsOf, freshPostgres } from '../server/setup.ts';

const BATCHES = Number(process.env.BENCH_BATCHES ?? 400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FORMS = (process.env.BENCH_FORMS ?? 'scan,probe,insert,probe-bytea').split(',');

const TABLES = (digest: 'text' | 'bytea') => `
  create table usage_counters (org_id uuid not null, month text not null,
    shard integer not null default 0, events bigint not null default 0,
    judge_evaluations bigint not null default 0, primary key (org_id, month, shard));
  create table event_claims (org_id uuid not null, event_id text not null,
    digest ${digest} not null, claimed_at timestamptz not null default now(),
    primary key (org_id, event_id));
  create index event_claims_time on event_claims (claimed_at);`;

const METER = `metered as (
    insert into usage_counters (org_id, month, shard, events)
    select $2::uuid, '2026-11', 3, count(*) from won having count(*) > 0
    on conflict (org_id, month, shard) do update set events = usage_counters.events + excluded.events
    returning 1)`;
const PROBE = `earlier as (select i.event_id, p.digest from input i cross join lateral (
    select c.digest from event_claims c where c.org_id = $2::uuid and c.event_id = i.event_id limit 1) p)`;
const CLAIM_NEW = `won as (insert into event_claims (org_id, event_id, digest)
    select $2::uuid, i.event_id, i.digest from input i
    where not exists (select 1 from earlier e where e.event_id = i.event_id)
    order by i.ord on conflict (org_id, event_id) do nothing returning event_id)`;
const ANSWER = `select (select jsonb_object_agg(event_id, digest) from earlier) as earlier,
    (select jsonb_agg(event_id) from won) as won`;

const literal = (values: string[]) => `{${values.map((v) => `"${v}"`).join(',')}}`;

interface Form {
  digest: 'text' | 'bytea';
  query(ids: string[], digests: Buffer[]): { text: string; values: unknown[] };
}

const FORM: Record<string, Form> = {
  // main before: a JSON record set, earlier claims read by `event_id in (…)`
  scan: {
    digest: 'text',
    query: (ids, digests) => ({
      text: `with input as (select * from jsonb_to_recordset($1::jsonb) as c(event_id text, digest text, ord int)),
        earlier as (select event_id, digest from event_claims
          where org_id = $2::uuid and event_id in (select event_id from input)),
        ${CLAIM_NEW}, ${METER} ${ANSWER}`,
      values: [
        JSON.stringify(ids.map((id, ord) => ({ event_id: id, digest: hex(digests, ord), ord }))),
      ],
    }),
  },
  // with an allowance now: text[] input, one index probe per id
  probe: {
    digest: 'text',
    query: (ids, digests) => ({
      text: `with input as (select * from unnest($1::text[], $3::text[]) with ordinality as c(event_id, digest, ord)),
        ${PROBE}, ${CLAIM_NEW}, ${METER} ${ANSWER}`,
      values: [literal(ids), literal(digests.map((d) => d.toString('hex')))],
    }),
  },
  // without an allowance now: no read first, the insert's conflict check skips old ids
  insert: {
    digest: 'text',
    query: (ids, digests) => ({
      text: `with input as (select * from unnest($1::text[], $3::text[]) with ordinality as c(event_id, digest, ord)),
        earlier as (select null::text as event_id, null::text as digest where false),
        won as (insert into event_claims (org_id, event_id, digest)
          select $2::uuid, i.event_id, i.digest from input i
          on conflict (org_id, event_id) do nothing returning event_id),
        ${METER} ${ANSWER}`,
      values: [literal(ids), literal(digests.map((d) => d.toString('hex')))],
    }),
  },
  // tried, not kept: the digest as 32 bytes, not 64 hex characters
  'probe-bytea': {
    digest: 'bytea',
    query: (ids, digests) => ({
      text: `with input as (select c.event_id, substring(decode($3, 'hex') from (c.ord::int - 1) * 32 + 1 for 32) as digest, c.ord
          from unnest($1::text[]) with ordinality as c(event_id, ord)),
        ${PROBE}, ${CLAIM_NEW}, ${METER} ${ANSWER}`,
      values: [literal(ids), Buffer.concat(digests).toString('hex')],
    }),
  },
};

function hex(digests: Buffer[], i: number): string {
  return (digests[i] as Buffer).toString('hex');
}

async function measure(name: string): Promise<number> {
  const form = FORM[name];
  if (form === undefined) throw new Error(`no form ${name}`);
  const db = await freshPostgres();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query(TABLES(form.digest));
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const pid = rows[0]?.pid as number;
    const org = randomUUID();
    let n = 0;
    const claim = async () => {
      const ids = Array.from({ length: 100 }, () => `bench-${n++}-${randomUUID().slice(0, 8)}`);
      const digests = ids.map((id) => createHash('sha256').update(id).digest());
      const { text, values } = form.query(ids, digests);
      const [first, ...rest] = values;
      await client.query(text, [first, org, ...rest]);
    };
    for (let i = 0; i < 30; i++) await claim();
    const before = cpuSecondsOf(pid);
    for (let i = 0; i < BATCHES; i++) await claim();
    return ((cpuSecondsOf(pid) - before) * 1e6) / (BATCHES * 100);
  } finally {
    await client.end();
    await db.drop();
  }
}

for (let round = 1; round <= ROUNDS; round++) {
  const line: string[] = [];
  for (const name of FORMS) line.push(`${name} ${(await measure(name)).toFixed(1)}`);
  console.log(`round ${round}, backend CPU µs per claimed event: ${line.join('  ')}`);
}
