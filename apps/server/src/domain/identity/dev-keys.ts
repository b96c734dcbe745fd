import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, type JWK } from 'jose';

/**
 * Development sessions: with no JWKS configured, the server signs its own tokens with a key
 * pair kept in the data dir, so `arbiter token` and the server agree without any provider.
 */
export interface DevKeyPair {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

export const DEV_ALG = 'ES256';

function keyFile(dataDir: string): string {
  return join(dataDir, 'dev-session-key.json');
}

export async function loadOrCreateDevKeys(dataDir: string): Promise<DevKeyPair> {
  const file = keyFile(dataDir);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as DevKeyPair;
  const { publicKey, privateKey } = await generateKeyPair(DEV_ALG, { extractable: true });
  const kid = `dev-${Date.now().toString(36)}`;
  const pair: DevKeyPair = {
    kid,
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: DEV_ALG },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: DEV_ALG, use: 'sig' },
  };
  mkdirSync(dataDir, { recursive: true });
  // wx: two processes starting at once must not overwrite each other's key.
  try {
    writeFileSync(file, JSON.stringify(pair), { mode: 0o600, flag: 'wx' });
  } catch {
    return JSON.parse(readFileSync(file, 'utf8')) as DevKeyPair;
  }
  return pair;
}
