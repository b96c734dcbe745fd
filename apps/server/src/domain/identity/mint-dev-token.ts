import { importJWK, SignJWT } from 'jose';
import { DEV_ALG, loadOrCreateDevKeys } from './dev-keys.ts';

export interface DevTokenRequest {
  dataDir: string;
  issuer: string;
  email: string;
  org: string;
  role: string;
  name?: string;
  sub?: string;
  ttlSeconds?: number;
}

/** A session token the development-mode server accepts; the subject defaults to the email. */
export async function mintDevToken(req: DevTokenRequest): Promise<string> {
  const pair = await loadOrCreateDevKeys(req.dataDir);
  const key = await importJWK(pair.privateJwk, DEV_ALG);
  return new SignJWT({
    email: req.email,
    name: req.name ?? req.email.split('@')[0],
    org_id: req.org,
    org_role: req.role,
  })
    .setProtectedHeader({ alg: DEV_ALG, kid: pair.kid })
    .setSubject(req.sub ?? `dev|${req.email}`)
    .setIssuer(req.issuer)
    .setIssuedAt()
    .setExpirationTime(`${req.ttlSeconds ?? 12 * 3600}s`)
    .sign(key);
}
