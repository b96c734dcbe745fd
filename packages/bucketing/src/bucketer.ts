import { murmur3Blocks, murmur3Finish } from './murmur3.ts';
import { encodeUtf8At, scratchBytes } from './utf8.ts';

/**
 * The bucket function of one experiment: identical to `bucketOf(salt, user, bucketCount)`, but
 * the whole 4-byte blocks of `salt + ":"` are hashed once, so each call hashes only the
 * prefix's 0–3 leftover bytes and the user id. This is what makes local assign cheap.
 */
export function createBucketer(salt: string, bucketCount: number): (userId: string) => number {
  const prefixLen = encodeUtf8At(`${salt}:`, 0);
  const prefix = scratchBytes().slice(0, prefixLen);
  const mixed = prefixLen & ~3;
  const state = murmur3Blocks(0, prefix, mixed);
  const tail = prefix.subarray(mixed);
  return (userId: string) => {
    // The scratch buffer may be replaced as it grows: set the tail after any growth.
    const end = encodeUtf8At(userId, tail.length);
    const bytes = scratchBytes();
    bytes.set(tail, 0);
    return murmur3Finish(state, bytes, end, mixed + end) % bucketCount;
  };
}
