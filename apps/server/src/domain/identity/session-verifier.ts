import { readFileSync } from 'node:fs';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
import { asciiLowercase } from '../../kernel/ascii-lowercase.ts';
import { isStorableText } from '../../schemas/text.ts';
import { loadOrCreateDevKeys } from './dev-keys.ts';
import { parseRole, type SessionClaims } from './session-claims.ts';

/** A verified token whose claim breaks the text rule (NUL, unpaired surrogate). */
export class UnstorableClaimError extends Error {
  readonly code = 'ERR_CLAIM_NOT_STORABLE';
  constructor(readonly claim: string) {
    super(`claim ${claim} contains a NUL character or an unpaired surrogate`);
  }
}

/** The settings a verifier reads: the data layer takes them as values, never the whole config. */
export interface SessionVerifierSettings {
  sessionJwksUrl: string | null;
  sessionIssuer: string;
  /** When set, a token must name this audience. */
  sessionAudience: string | null;
  dataDir: string;
}

export interface SessionVerifier {
  /** Resolves the claims of a valid token; rejects for anything else. */
  verify(token: string): Promise<SessionClaims>;
}

async function keySource(config: SessionVerifierSettings): Promise<JWTVerifyGetKey> {
  const source = config.sessionJwksUrl;
  if (source === null) {
    const pair = await loadOrCreateDevKeys(config.dataDir);
    return createLocalJWKSet({ keys: [pair.publicJwk] });
  }
  if (/^https?:\/\//.test(source)) return createRemoteJWKSet(new URL(source));
  // A file path: self-hosting and tests. Read on every miss so a rotated file is picked up.
  const path = source.replace(/^file:\/\//, '');
  return (header, token) => {
    const jwks = JSON.parse(readFileSync(path, 'utf8')) as JSONWebKeySet;
    return createLocalJWKSet(jwks)(header, token);
  };
}

export async function createSessionVerifier(
  config: SessionVerifierSettings,
): Promise<SessionVerifier> {
  const keys = await keySource(config);
  return {
    async verify(token) {
      const { payload } = await jwtVerify(token, keys, {
        issuer: config.sessionIssuer,
        // A token the identity provider minted for another application is not ours to honour.
        ...(config.sessionAudience === null ? {} : { audience: config.sessionAudience }),
        requiredClaims: ['sub', 'exp'],
        clockTolerance: 5,
      });
      // Claims are stored (users, orgs): text PostgreSQL cannot hold makes the token invalid.
      for (const claim of ['sub', 'email', 'name', 'org_id', 'org_role'] as const) {
        const value = payload[claim];
        if (typeof value === 'string' && !isStorableText(value))
          throw new UnstorableClaimError(claim);
      }
      const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
      return {
        sub: payload.sub as string,
        email: ((e) => (e === null ? null : asciiLowercase(e)))(str(payload.email)),
        emailVerified: 'email_verified' in payload ? payload.email_verified === true : null,
        name: str(payload.name),
        orgExternalId: str(payload.org_id),
        role: parseRole(payload.org_role),
      };
    },
  };
}
