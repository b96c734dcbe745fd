/**
 * MurmurHash3_x86_32 (aappleby/smhasher), frozen as bucketing hash version 1, split in steps so
 * a fixed prefix (the experiment's `salt:`) can be hashed once and continued per user, and so a
 * caller holding the bytes in another form (char codes) can feed whole blocks itself.
 */
const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** Scrambles one 4-byte little-endian block (or the zero-padded tail) before it meets the state. */
export function murmur3Scramble(k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, C2);
}

/** Mixes one whole 4-byte little-endian block `k` into state `h`. */
export function murmur3MixBlock(h: number, k: number): number {
  h ^= murmur3Scramble(k);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** Final avalanche of state `h` (the tail already folded in) over `totalLen` bytes. */
export function murmur3Avalanche(h: number, totalLen: number): number {
  h ^= totalLen;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Mixes the whole 4-byte blocks of data[0, end) into state `h`; `end` must be a multiple of 4. */
export function murmur3Blocks(h: number, data: Uint8Array, end: number): number {
  for (let i = 0; i < end; i += 4) {
    const k =
      (data[i] as number) |
      ((data[i + 1] as number) << 8) |
      ((data[i + 2] as number) << 16) |
      ((data[i + 3] as number) << 24);
    h = murmur3MixBlock(h, k);
  }
  return h;
}

/**
 * Continues from state `h` over data[0, len) and finalises; `totalLen` counts every byte
 * hashed, those mixed before this call included.
 */
export function murmur3Finish(h: number, data: Uint8Array, len: number, totalLen: number): number {
  const blocks = len & ~3;
  h = murmur3Blocks(h, data, blocks);
  let k = 0;
  switch (len & 3) {
    // biome-ignore lint/suspicious/noFallthroughSwitchClause: the tail falls through by design
    case 3:
      k ^= (data[blocks + 2] as number) << 16;
    // biome-ignore lint/suspicious/noFallthroughSwitchClause: the tail falls through by design
    case 2:
      k ^= (data[blocks + 1] as number) << 8;
    case 1:
      k ^= data[blocks] as number;
      h ^= murmur3Scramble(k);
  }
  return murmur3Avalanche(h, totalLen);
}

/** Returns the unsigned 32-bit hash of `len` bytes of `data`. */
export function murmur3x86_32(data: Uint8Array, len: number = data.length, seed = 0): number {
  return murmur3Finish(seed | 0, data, len, len);
}
