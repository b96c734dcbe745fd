import {
  murmur3Avalanche,
  murmur3Blocks,
  murmur3Finish,
  murmur3MixBlock,
  murmur3Scramble,
} from './murmur3.ts';
import { encodeUtf8At, scratchBytes } from './utf8.ts';

/**
 * `salt + ":"` as both hashers start from it: its whole 4-byte blocks mixed into `state` once,
 * the 0-3 bytes left over in `tail` (and packed into `tailWord`), and `lead`, the chars of a
 * user id that complete the tail's block before the id runs in whole blocks.
 */
interface SaltPrefix {
  readonly prefixLen: number;
  readonly mixed: number;
  readonly state: number;
  readonly tail: Uint8Array;
  readonly tailWord: number;
  readonly lead: number;
  readonly leadShift: number;
}

function saltPrefix(salt: string): SaltPrefix {
  const prefixLen = encodeUtf8At(`${salt}:`, 0);
  const prefix = scratchBytes().slice(0, prefixLen);
  const mixed = prefixLen & ~3;
  const tail = prefix.subarray(mixed);
  let tailWord = 0;
  for (let j = 0; j < tail.length; j++) tailWord |= (tail[j] as number) << (j << 3);
  return {
    prefixLen,
    mixed,
    state: murmur3Blocks(0, prefix, mixed),
    tail,
    tailWord,
    lead: (4 - tail.length) & 3,
    leadShift: tail.length << 3,
  };
}

/**
 * The bucket function of one experiment: identical to `bucketOf(salt, user, bucketCount)`, but
 * the whole 4-byte blocks of `salt + ":"` are hashed once, and a user id that is all ASCII (one
 * UTF-8 byte per char code, the usual case) is hashed straight from its char codes, with no
 * string built and no bytes copied. Any other id goes through the UTF-8 encoder. Same bytes,
 * same hash: this is what makes local assign cheap.
 */
export function createBucketer(salt: string, bucketCount: number): (userId: string) => number {
  const salted = saltPrefix(salt);
  const { state, tail, mixed } = salted;
  const encoded = (userId: string): number => {
    // The scratch buffer may be replaced as it grows: set the tail after any growth.
    const end = encodeUtf8At(userId, tail.length);
    const bytes = scratchBytes();
    bytes.set(tail, 0);
    return murmur3Finish(state, bytes, end, mixed + end) % bucketCount;
  };
  const ascii = asciiHasher(salted);
  return (userId: string) => {
    const hash = ascii(userId);
    return hash < 0 ? encoded(userId) : hash % bucketCount;
  };
}

/**
 * Hashes `prefix-tail + userId` from char codes, assuming every code is below 0x80; returns -1
 * (after the work, so the common path has no per-char branch) when one was not.
 */
function asciiHasher(salted: SaltPrefix): (userId: string) => number {
  const { state, prefixLen, tailWord, lead, leadShift } = salted;
  return (userId: string) => {
    const n = userId.length;
    let h = state;
    let seen = 0;
    let i = 0;
    if (n < lead) {
      // The id ends inside the prefix's partial block: that block is the tail.
      h ^= murmur3Scramble(packChars(userId, 0, n, tailWord, leadShift));
      return codesOf(userId, 0, n) > 0x7f ? -1 : murmur3Avalanche(h, prefixLen + n);
    }
    if (lead > 0) {
      seen |= codesOf(userId, 0, lead);
      h = murmur3MixBlock(h, packChars(userId, 0, lead, tailWord, leadShift));
      i = lead;
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
      seen |= codesOf(userId, i, n);
      h ^= murmur3Scramble(packChars(userId, i, n, 0, 0));
    }
    return seen > 0x7f ? -1 : murmur3Avalanche(h, prefixLen + n);
  };
}

/**
 * Char codes `from` to `to` of `id` (at most 3: a block's lead or tail) packed a byte each into
 * `word`, the first at bit `shift`. Meaningful for ASCII codes, which `codesOf` checks.
 */
function packChars(id: string, from: number, to: number, word: number, shift: number): number {
  let k = word;
  for (let i = from; i < to; i++) k |= id.charCodeAt(i) << (shift + ((i - from) << 3));
  return k;
}

/** The char codes `from` to `to` of `id`, or-ed: above 0x7f when one of them is not ASCII. */
function codesOf(id: string, from: number, to: number): number {
  let seen = 0;
  for (let i = from; i < to; i++) seen |= id.charCodeAt(i);
  return seen;
}

/** Second-lane multiplier (the 32-bit golden ratio): odd, so each block step is a bijection. */
const LANE2_M = 0x9e3779b1;
const LANE2_SEED = 0x5bd1e995;

/**
 * The hash of `salt:userId` that buckets are taken from, by the same ASCII path as
 * `createBucketer` (the bucket is `hash % bucketCount`), plus a second 32-bit hash of the id
 * from the same pass, left in `second`: a caller that wants 64 bits per user (the client's
 * exposure de-duplication) gets them for a multiply per block. A class of its own rather than
 * a change to `createBucketer`, whose callers would pay that multiply for nothing. `second` is
 * not part of the frozen bucketing algorithm: it never decides a bucket.
 */
export class UserHasher {
  /** The second hash of the last id `hash` was called with. */
  second = 0;
  readonly #state: number;
  readonly #tail: Uint8Array;
  readonly #mixed: number;
  readonly #prefixLen: number;
  readonly #tailWord: number;
  readonly #lead: number;
  readonly #leadShift: number;

  constructor(salt: string) {
    const salted = saltPrefix(salt);
    this.#prefixLen = salted.prefixLen;
    this.#mixed = salted.mixed;
    this.#state = salted.state;
    this.#tail = salted.tail;
    this.#tailWord = salted.tailWord;
    this.#lead = salted.lead;
    this.#leadShift = salted.leadShift;
  }

  /** The unsigned 32-bit MurmurHash3 of the UTF-8 bytes of `salt:userId`; sets `second`. */
  hash(userId: string): number {
    const hash = this.#ascii(userId);
    return hash < 0 ? this.#encoded(userId) : hash;
  }

  /**
   * Hashes `prefix-tail + userId` from char codes, assuming every code is below 0x80; returns
   * -1 (after the work, so the common path has no per-char branch) when one was not.
   */
  #ascii(userId: string): number {
    const n = userId.length;
    const lead = this.#lead;
    let h = this.#state;
    let h2 = LANE2_SEED;
    let seen = 0;
    let i = 0;
    if (n < lead) {
      // The id ends inside the prefix's partial block: that block is the tail.
      const k = packChars(userId, 0, n, this.#tailWord, this.#leadShift);
      h ^= murmur3Scramble(k);
      h2 = Math.imul(h2 ^ k, LANE2_M);
      this.second = murmur3Avalanche(h2, n);
      return codesOf(userId, 0, n) > 0x7f ? -1 : murmur3Avalanche(h, this.#prefixLen + n);
    }
    if (lead > 0) {
      seen |= codesOf(userId, 0, lead);
      const k = packChars(userId, 0, lead, this.#tailWord, this.#leadShift);
      i = lead;
      h = murmur3MixBlock(h, k);
      h2 = Math.imul(h2 ^ k, LANE2_M);
      h2 ^= h2 >>> 15;
    }
    const blocksEnd = n - ((n - lead) & 3);
    for (; i < blocksEnd; i += 4) {
      const c0 = userId.charCodeAt(i);
      const c1 = userId.charCodeAt(i + 1);
      const c2 = userId.charCodeAt(i + 2);
      const c3 = userId.charCodeAt(i + 3);
      seen |= c0 | c1 | c2 | c3;
      const k = c0 | (c1 << 8) | (c2 << 16) | (c3 << 24);
      h = murmur3MixBlock(h, k);
      h2 = Math.imul(h2 ^ k, LANE2_M);
      h2 ^= h2 >>> 15;
    }
    if (i < n) {
      seen |= codesOf(userId, i, n);
      const k = packChars(userId, i, n, 0, 0);
      h ^= murmur3Scramble(k);
      h2 = Math.imul(h2 ^ k, LANE2_M);
    }
    this.second = murmur3Avalanche(h2, n);
    return seen > 0x7f ? -1 : murmur3Avalanche(h, this.#prefixLen + n);
  }

  /** Any id, through the UTF-8 encoder; `second` folds the UTF-16 code units. */
  #encoded(userId: string): number {
    // The scratch buffer may be replaced as it grows: set the tail after any growth.
    const end = encodeUtf8At(userId, this.#tail.length);
    const bytes = scratchBytes();
    bytes.set(this.#tail, 0);
    let h2 = LANE2_SEED ^ 0x7f4a7c15;
    for (let i = 0; i < userId.length; i++) {
      h2 = Math.imul(h2 ^ userId.charCodeAt(i), LANE2_M);
      h2 ^= h2 >>> 15;
    }
    this.second = murmur3Avalanche(h2, userId.length);
    return murmur3Finish(this.#state, bytes, end, this.#mixed + end);
  }
}
