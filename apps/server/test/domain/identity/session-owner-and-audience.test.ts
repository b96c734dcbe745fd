import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { TEST_ISSUER } from '../../support/sessions.ts';

const AUDIENCE = 'https://arbiter.example/app';
const DASHBOARD = 'https://dashboard.arbiter.example';
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    ARBITER_PLATFORM_OWNER_EMAILS: 'kate@x.io',
    ARBITER_SESSION_AUDIENCE: AUDIENCE,
    ARBITER_SESSION_AUTHORIZED_PARTIES: ` ${DASHBOARD} , https://admin.arbiter.example`,
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
  const whoami = async (claims: { aud?: string | string[] | null; azp?: string }) => {
    const token = await h.token({ sub: 'aud-user', org_id: 'org_aud', ...claims });
    return h.call(token, { method: 'GET', url: '/v1/whoami' });
  };

  it('admits a token for this audience and refuses one for another, or for none', async () => {
    expect((await whoami({ aud: AUDIENCE })).statusCode).toBe(200);
    const other = await whoami({ aud: 'https://another-app.example' });
    expect(other.statusCode).toBe(401);
    expect(other.json().type).toBe('/problems/invalid-credential');
    expect((await whoami({ aud: null })).statusCode).toBe(401);
  });

  it('is required with a JWKS: the server refuses to start without it', () => {
    const env = {
      ARBITER_SESSION_JWKS_URL: h.idp.jwksPath,
      ARBITER_SESSION_ISSUER: TEST_ISSUER,
    };
    expect(() => loadConfig(env)).toThrow(
      'ARBITER_SESSION_AUDIENCE: required with ARBITER_SESSION_JWKS_URL',
    );
    expect(() => loadConfig({ ...env, ARBITER_SESSION_AUDIENCE: '' })).toThrow(ConfigError);
    expect(loadConfig({ ...env, ARBITER_SESSION_AUDIENCE: AUDIENCE }).sessionAudience).toBe(
      AUDIENCE,
    );
    expect(() =>
      loadConfig({ ARBITER_SESSION_AUTHORIZED_PARTIES: 'https://dashboard.example' }),
    ).toThrow('ARBITER_SESSION_AUTHORIZED_PARTIES: needs ARBITER_SESSION_JWKS_URL');
  });
});

describe('the authorized party (azp) of a session token', () => {
  const refusedAs = async (res: Awaited<ReturnType<Harness['call']>>) => {
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({
      type: '/problems/invalid-credential',
      detail: 'The session token was issued to another party (azp) than this deployment',
    });
  };
  const whoami = async (claims: { aud?: string | string[]; azp?: string }) => {
    const token = await h.token({ sub: 'azp-user', org_id: 'org_azp', aud: AUDIENCE, ...claims });
    return h.call(token, { method: 'GET', url: '/v1/whoami' });
  };

  it('admits the audience itself and a configured party', async () => {
    expect((await whoami({ azp: AUDIENCE })).statusCode).toBe(200);
    expect((await whoami({ azp: DASHBOARD })).statusCode).toBe(200);
    expect(
      (await whoami({ aud: [AUDIENCE, 'https://other.example'], azp: DASHBOARD })).statusCode,
    ).toBe(200);
  });

  it('refuses a token issued to another party', async () => {
    await refusedAs(await whoami({ azp: 'https://evil.example' }));
    await refusedAs(await whoami({ azp: `${DASHBOARD}/` }));
  });

  it('refuses a token for several audiences that does not say which party it is for', async () => {
    await refusedAs(await whoami({ aud: [AUDIENCE, 'https://other.example'] }));
  });
});
