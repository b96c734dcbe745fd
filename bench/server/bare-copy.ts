/**
 * A bare COPY of rows already in COPY text, the floor several benchmarks measure against. Sent
 * the way a plain client sends it (pg-copy-streams: the query, then after the server's
 * CopyInResponse the rows and their end as writes of their own), or, with `oneWrite`, the way
 * the server's acceptance sends it (`CopyInOneWrite`: all of it in one socket write).
 */
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { CopyInOneWrite } from '../../apps/server/src/db/copy-in-one-write.ts';

export async function bareCopy(
  client: pg.Client,
  text: string,
  rows: string,
  { oneWrite = false }: { oneWrite?: boolean } = {},
): Promise<void> {
  if (oneWrite) {
    await client.query(new CopyInOneWrite(text, rows)).done;
    return;
  }
  const copy = client.query(copyFrom(text));
  copy.end(rows);
  await finished(copy);
}

/** `n` connections of their own to `url`: one per floor sender, as each API sender has its own socket. */
export function connectClients(url: string, n: number): Promise<pg.Client[]> {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      return c;
    }),
  );
}
