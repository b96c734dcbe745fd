import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export const TEST_ISSUER = 'https://identity.test';
/** The audience every test app expects, and every test token names unless told otherwise. */
export const TEST_AUDIENCE = 'https://arbiter.test';

export interface TokenClaims {
  sub?: string;
  email?: string;
  name?: string;
  org_id?: string | null;
  org_role?: string;
  /** The token's audience: TEST_AUDIENCE when absent, none when null. */
  aud?: string | string[] | null;
  /** The token's authorized party (`azp`); none when absent. */
  azp?: string;
  /** Sent as the token's `email_verified` claim when given. */
  email_verified?: unknown;
}

/** An identity provider for tests: a key pair whose public half is served as a JWKS file. */
export async function testIdentityProvider() {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-jwks-'));
  const jwksPath = join(dir, 'jwks.json');
  writeFileSync(
    jwksPath,
    JSON.stringify({
      keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }],
    }),
  );
  const stranger = await generateKeyPair('RS256');

  async function sign(
    claims: TokenClaims,
    opts: { issuer?: string; expiresIn?: string | number; foreignKey?: boolean } = {},
  ): Promise<string> {
    const payload: Record<string, unknown> = {
      email: claims.email ?? `${claims.sub ?? 'user'}@example.com`,
      name: claims.name ?? claims.sub ?? 'Test User',
      org_role: claims.org_role ?? 'member',
    };
    if (claims.org_id !== null) payload.org_id = claims.org_id ?? 'org_a';
    if (claims.aud !== null) payload.aud = claims.aud ?? TEST_AUDIENCE;
    if (claims.azp !== undefined) payload.azp = claims.azp;
    if (claims.email_verified !== undefined) payload.email_verified = claims.email_verified;
    return new SignJWT(payload)
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setSubject(claims.sub ?? 'user_1')
      .setIssuer(opts.issuer ?? TEST_ISSUER)
      .setIssuedAt()
      .setExpirationTime(opts.expiresIn ?? '1h')
      .sign(opts.foreignKey ? stranger.privateKey : privateKey);
  }
  /** Removes the JWKS file's folder: a test run by hand (no test command's TMPDIR) leaves none. */
  const dispose = () => rmSync(dir, { recursive: true, force: true });
  return { jwksPath, sign, dispose };
}
