import {
  murmur3Avalanche,
  murmur3Blocks,
  murmur3Finish,
  murmur3MixBlock,
  murmur3Scramble,
} from './murmur3.ts';
import { encodeUtf8At, scratchBytes } from './utf8.ts';

/**
 * The bucket function of one experiment: identical to `bucketOf(salt, user, bucketCount)`, but
 * the whole 4-byte blocks of `salt + ":"` are hashed once, and a user id that is all ASCII (one
 * UTF-8 byte per char code, the usual case) is hashed straight from its char codes, with no
 * string built and no bytes copied. Any other id goes through the UTF-8 encoder. Same bytes,
 * same hash: this is what makes local assign cheap.
 */
export function createBucketer(salt: string, bucketCount: number): (userId: string) => number {
  const prefixLen = encodeUtf8At(`${salt}:`, 0);
  const prefix = scratchBytes().slice(0, prefixLen);
  const mixed = prefixLen & ~3;
  const state = murmur3Blocks(0, prefix, mixed);
  const tail = prefix.subarray(mixed);
  const encoded = (userId: string): number => {
    // The scratch buffer may be replaced as it grows: set the tail after any growth.
    const end = encodeUtf8At(userId, tail.length);
    const bytes = scratchBytes();
    bytes.set(tail, 0);
    return murmur3Finish(state, bytes, end, mixed + end) % bucketCount;
  };
  const ascii = asciiHasher(state, tail, prefixLen);
  return (userId: string) => {
    const hash = ascii(userId);
    return hash < 0 ? encoded(userId) : hash % bucketCount;
  };
}

/**
 * Hashes `prefix-tail + userId` from char codes, assuming every code is below 0x80; returns -1
 * (after the work, so the common path has no per-char branch) when one was not.
 */
function asciiHasher(
  state: number,
  tail: Uint8Array,
  prefixLen: number,
): (userId: string) => number {
  let tailWord = 0;
  for (let j = 0; j < tail.length; j++) tailWord |= (tail[j] as number) << (j << 3);
  // Chars that complete the prefix's partial block before the user id runs in whole blocks.
  const lead = (4 - tail.length) & 3;
  const leadShift = tail.length << 3;
  return (userId: string) => {
    const n = userId.length;
    let h = state;
    let seen = 0;
    let i = 0;
    if (n < lead) {
      // The id ends inside the prefix's partial block: that block is the tail.
      let k = tailWord;
      for (; i < n; i++) {
        const c = userId.charCodeAt(i);
        seen |= c;
        k |= c << (leadShift + (i << 3));
      }
      h ^= murmur3Scramble(k);
      return seen > 0x7f ? -1 : murmur3Avalanche(h, prefixLen + n);
    }
    if (lead > 0) {
      let k = tailWord;
      for (; i < lead; i++) {
        const c = userId.charCodeAt(i);
        seen |= c;
        k |= c << (leadShift + (i << 3));
      }
      h = murmur3MixBlock(h, k);
    }
    const blocksEnd = n - ((n - lead) & 3);
    for (; i < blocksEnd; i += 4) {
      const c0 = userId.charCodeAt(i);
      const c1 = userId.charCodeAt(i + 1);
      const c2 = userId.charCodeAt(i + 2);
      const c3 = userId.charCodeAt(i + 3);
      seen |= c0 | c1 | c2 | c3;
      h = murmur3MixBlock(h, c0 | (c1 << 8) | (c2 << 16) | (c3 << 24));
    }
    if (i < n) {
      let k = 0;
      for (let shift = 0; i < n; i++, shift += 8) {
        const c = userId.charCodeAt(i);
        seen |= c;
        k |= c << shift;
      }
      h ^= murmur3Scramble(k);
    }
    return seen > 0x7f ? -1 : murmur3Avalanche(h, prefixLen + n);
  };
}
