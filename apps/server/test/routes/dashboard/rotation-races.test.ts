import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';

/** Every line the server logs in this file, kept to look for the secrets it minted. */
const logged: string[] = [];
const capture = new Writable({
  write(chunk, _encoding, done) {
    logged.push(String(chunk));
    done();
  },
});

let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness({}, { logDestination: capture });
  org = await h.org('org_races');
});
afterAll(() => h.close());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function rotateKey(scope: string) {
  return h.call(org.admin, { method: 'POST', url: '/v1/keys', payload: { scope } });
}
function rotateSecret() {
  return h.call(org.admin, { method: 'POST', url: '/v1/webhook-secrets' });
}

describe('concurrent rotations of one org', () => {
  it('answers 201 to each of two simultaneous key rotations of one scope, 20 times', async () => {
    const minted: string[] = [];
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const scope = attempt % 2 === 0 ? 'publishable' : 'secret';
      const pair = await Promise.all([rotateKey(scope), rotateKey(scope)]);
      expect(pair.map((r) => r.statusCode)).toEqual([201, 201]);
      const keys = pair.map((r) => r.json().key as string);
      minted.push(...keys);
      // One of the two is the scope's active key, the other was rotated away by it.
      const answers = await Promise.all(
        keys.map(
          async (key) => (await h.ingest(key, { method: 'GET', url: '/v1/config' })).statusCode,
        ),
      );
      expect(answers.sort()).toEqual([200, 401]);
    }
    const listed = (await h.call(org.admin, { method: 'GET', url: '/v1/keys' })).json();
    expect(listed.map((k: { scope: string }) => k.scope)).toEqual(['publishable', 'secret']);
    const leaked = minted.filter((key) =>
      logged.some((line) => line.includes(key) || line.includes(sha256(key))),
    );
    expect(leaked).toEqual([]);
  });

  it('answers 201 to each of two simultaneous webhook-secret rotations, 12 times', async () => {
    for (let attempt = 0; attempt < 12; attempt += 1) {
      const pair = await Promise.all([rotateSecret(), rotateSecret()]);
      expect(pair.map((r) => r.statusCode)).toEqual([201, 201]);
      const secrets = pair.map((r) => r.json().secret as string);
      expect(logged.filter((line) => secrets.some((s) => line.includes(s)))).toEqual([]);
    }
    const status = (await h.call(org.admin, { method: 'GET', url: '/v1/webhook-secrets' })).json();
    expect(status.configured).toBe(true);
  });

  it('logged every request, so the absence of secrets above means something', () => {
    expect(logged.some((line) => line.includes('"path":"/v1/keys"'))).toBe(true);
  });
});
