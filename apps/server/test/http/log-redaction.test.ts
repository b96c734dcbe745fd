import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/create-logger.ts';
import { apiKeys, orgs } from '../../src/db/schema.ts';
import { freshDatabase } from '../support/database.ts';

let db: Awaited<ReturnType<typeof freshDatabase>>;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db.close());

function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: createLogger('info', stream), lines };
}

/** A real failing INSERT whose parameters are secrets: the same hash twice. */
async function failingInsert(hash: string, sealed: string): Promise<unknown> {
  const [org] = await db.db
    .insert(orgs)
    .values({ externalId: `org_${randomBytes(4).toString('hex')}` })
    .returning();
  const row = { orgId: org!.id, scope: 'publishable', keyHash: hash, keyHint: 'svc…' };
  await db.db.insert(apiKeys).values({ ...row, keyCiphertext: sealed });
  try {
    await db.db.insert(apiKeys).values({ ...row, scope: 'secret', keyCiphertext: sealed });
  } catch (err) {
    return err;
  }
  throw new Error('the duplicate insert succeeded');
}

describe('the logger', () => {
  it('keeps the SQL parameters of a failed query out of the line, and what explains it in', async () => {
    const hash = randomBytes(32).toString('hex');
    const sealed = `v1.${randomBytes(12).toString('base64url')}.${randomBytes(40).toString('base64url')}`;
    const err = await failingInsert(hash, sealed);
    // The driver's error does carry them: that is what must not be written.
    expect(JSON.stringify(err, Object.getOwnPropertyNames(err)) + String(err)).toContain(hash);

    const { log, lines } = capturingLogger();
    log.error({ err }, 'unhandled error');
    log.warn(err as Error, 'the error as the first argument');
    log.error({ error: err }, 'under the other name');
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).not.toContain(hash);
      expect(line).not.toContain(sealed.split('.')[2]);
    }
    const entry = JSON.parse(lines[0]!);
    expect(entry.err.message).toMatch(/^Failed query: insert into "api_keys"/);
    expect(entry.err.message).toContain('params: [redacted]');
    expect(entry.err.stack).toContain('api_keys_key_hash_unique');
    expect(Object.keys(entry.err)).not.toContain('params');
  });

  it('censors credential headers should a request log them', () => {
    const { log, lines } = capturingLogger();
    log.info({
      req: { headers: { authorization: 'Bearer abc.def.ghi', 'x-api-key': 'svc_pk_x' } },
    });
    expect(lines[0]).not.toContain('abc.def.ghi');
    expect(lines[0]).not.toContain('svc_pk_x');
  });
});
