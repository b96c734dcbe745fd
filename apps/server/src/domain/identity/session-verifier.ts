import { readFileSync } from 'node:fs';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  type JSONWebKeySet,
  type JWTPayload,
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

/** A verified token minted for another party than this deployment (OIDC's `azp` rules). */
export class AuthorizedPartyError extends Error {
  readonly code = 'ERR_AZP_NOT_ALLOWED';
  constructor(detail: string) {
    super(detail);
  }
}

/** The settings a verifier reads: the data layer takes them as values, never the whole config. */
export interface SessionVerifierSettings {
  sessionJwksUrl: string | null;
  sessionIssuer: string;
  /** A token must name this audience; set whenever a JWKS is (config refuses it otherwise). */
  sessionAudience: string | null;
  /** `azp` values a token may carry besides the audience. */
  sessionAuthorizedParties: readonly string[];
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

/**
 * OpenID Connect Core's ID token rules for the authorized party, made musts: a token for
 * several audiences must say which party it was issued to (`azp`), and a token that names one
 * must name this deployment (its audience) or a party it trusts. Clerk names the origin that
 * asked for the token, hence the list.
 */
function checkAuthorizedParty(
  payload: JWTPayload,
  audience: string,
  allowed: readonly string[],
): void {
  const { azp, aud } = payload;
  if (azp === undefined) {
    if (Array.isArray(aud) && aud.length > 1)
      throw new AuthorizedPartyError('a token for several audiences must carry azp');
    return;
  }
  if (typeof azp !== 'string' || (azp !== audience && !allowed.includes(azp)))
    throw new AuthorizedPartyError('the token was issued to another party (azp)');
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
      if (config.sessionAudience !== null)
        checkAuthorizedParty(payload, config.sessionAudience, config.sessionAuthorizedParties);
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
