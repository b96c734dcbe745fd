import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CopyInOneWrite } from '../../src/db/copy-in-one-write.ts';
import { DIVISION_BY_ZERO, UNIQUE_VIOLATION } from '../../src/db/pg-error-codes.ts';
import { type Harness, startHarness } from '../support/harness.ts';

// The acceptance's COPY goes with its rows and their end in one write, before PostgreSQL has
// asked for them (src/db/copy-in-one-write.ts). Whatever fails, before, during or after the
// COPY, must store nothing and leave the connection answering the next query, not the
// messages the backend skipped.

let h: Harness;
let client: pg.Client;

beforeAll(async () => {
  h = await startHarness();
  if (h.databaseUrl === null) throw new Error('run with ARBITER_TEST_DB=postgres');
  client = new pg.Client({ connectionString: h.databaseUrl });
  await client.connect();
  await client.query('create temp table copied (id int primary key, body text not null)');
  await client.query('create temp table after_copy (n int not null)');
});
afterAll(async () => {
  await client?.end();
  await h?.close();
});
beforeEach(async () => {
  await client.query('truncate copied, after_copy');
});

const COPY = 'copy copied (id, body) from stdin';

function send(text: string, rows: string): Promise<void> {
  return client.query(new CopyInOneWrite(text, rows)).done;
}

async function stored(): Promise<{ copied: number; after: number }> {
  const { rows } = await client.query(
    'select (select count(*) from copied)::int as copied, (select count(*) from after_copy)::int as after',
  );
  return rows[0];
}

async function refusal(text: string, rows: string): Promise<string | undefined> {
  const error = await send(text, rows).then(
    () => undefined,
    (e: unknown) => e as { code?: string },
  );
  return error?.code;
}

describe('a COPY sent in one write', () => {
  it('stores its rows byte for byte and runs the statements after it', async () => {
    const bodies = ['plain', 'é, 漢字 and 😀', 'tab\\tand newline\\n escaped'];
    await send(
      `${COPY}; insert into after_copy values (1)`,
      bodies.map((body, i) => `${i + 1}\t${body}\n`).join(''),
    );
    const { rows } = await client.query('select body from copied order by id');
    expect(rows.map((r) => r.body)).toEqual([
      'plain',
      'é, 漢字 and 😀',
      'tab\tand newline\n escaped',
    ]);
    expect(await stored()).toEqual({ copied: 3, after: 1 });
  });

  it('stores a batch larger than a socket buffer whole', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `${i}\t${'x'.repeat(200)}\n`).join('');
    await send(COPY, rows);
    expect(await stored()).toEqual({ copied: 20_000, after: 0 });
  });

  it('fails whole on a row that breaks a key, and the connection answers the next query', async () => {
    expect(await refusal(`${COPY}; insert into after_copy values (1)`, '1\ta\n2\tb\n1\tc\n')).toBe(
      UNIQUE_VIOLATION,
    );
    expect(await stored()).toEqual({ copied: 0, after: 0 });
    await send(COPY, '7\tnext\n');
    expect(await stored()).toEqual({ copied: 1, after: 0 });
  });

  it('stores nothing when a statement after the COPY fails', async () => {
    expect(await refusal(`${COPY}; select 1 / 0`, '1\ta\n')).toBe(DIVISION_BY_ZERO);
    expect(await stored()).toEqual({ copied: 0, after: 0 });
  });

  it('stores nothing when a statement before the COPY fails, its rows skipped', async () => {
    expect(await refusal(`select 1 / 0; ${COPY}`, '1\ta\n')).toBe(DIVISION_BY_ZERO);
    expect(await stored()).toEqual({ copied: 0, after: 0 });
    const { rows } = await client.query('select 41 + 1 as answer');
    expect(rows).toEqual([{ answer: 42 }]);
  });
});
