import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';
import { startServer } from '../../support/process.ts';
import { TEST_ISSUER } from '../../support/sessions.ts';

const AUDIENCE = 'https://arbiter.example/app';
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    ARBITER_PLATFORM_OWNER_EMAILS: 'kate@x.io',
    ARBITER_SESSION_AUDIENCE: AUDIENCE,
  });
});
afterAll(() => h.close());

async function overviewAs(claims: Parameters<Harness['token']>[0]): Promise<number> {
  const token = await h.token({ sub: 'kate', org_id: 'org_owner', aud: AUDIENCE, ...claims });
  return (await h.call(token, { method: 'GET', url: '/v1/admin/overview' })).statusCode;
}

describe('the platform-owner email match', () => {
  it('admits the owner whatever the ASCII case', async () => {
    expect(await overviewAs({ email: 'Kate@X.io' })).toBe(200);
    expect(await overviewAs({ email: 'kate@x.io', email_verified: true })).toBe(200);
  });

  it('refuses a Unicode look-alike: K written as U+212A KELVIN SIGN', async () => {
    expect(await overviewAs({ email: '\u212Aate@x.io' })).toBe(403);
    expect(await overviewAs({ email: 'kate@x.\u0130o' })).toBe(403);
  });

  it('refuses an address the token says is not verified', async () => {
    expect(await overviewAs({ email: 'kate@x.io', email_verified: false })).toBe(403);
    expect(await overviewAs({ email: 'kate@x.io', email_verified: 'true' })).toBe(403);
  });
});

describe('ARBITER_SESSION_AUDIENCE', () => {
  const whoami = async (aud: string | undefined) => {
    const token = await h.token({ sub: 'aud-user', org_id: 'org_aud', aud });
    return h.call(token, { method: 'GET', url: '/v1/whoami' });
  };

  it('admits a token for this audience and refuses one for another, or for none', async () => {
    expect((await whoami(AUDIENCE)).statusCode).toBe(200);
    const other = await whoami('https://another-app.example');
    expect(other.statusCode).toBe(401);
    expect(other.json().type).toBe('/problems/invalid-credential');
    expect((await whoami(undefined)).statusCode).toBe(401);
  });

  it('is warned about once at start when a JWKS is set without it', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const server = await startServer({
      ARBITER_DATA_DIR: mkdtempSync(join(tmpdir(), 'arbiter-aud-')),
      ARBITER_SESSION_JWKS_URL: h.idp.jwksPath,
      ARBITER_SESSION_ISSUER: TEST_ISSUER,
      ARBITER_DATABASE_URL: '',
      ARBITER_SESSION_AUDIENCE: '',
    });
    try {
      const warnings = server.output().match(/ARBITER_SESSION_AUDIENCE is not set/g) ?? [];
      expect(warnings).toHaveLength(1);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
