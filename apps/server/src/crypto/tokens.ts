import { createHash, randomBytes } from 'node:crypto';

/** 32 random bytes (256 bits) as base64url: well above the 192 bits keys must carry. */
export function randomToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
