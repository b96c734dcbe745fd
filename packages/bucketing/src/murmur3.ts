/**
 * MurmurHash3_x86_32 (aappleby/smhasher), frozen as bucketing hash version 1.
 * Returns the unsigned 32-bit hash of `len` bytes of `data`.
 */
export function murmur3x86_32(data: Uint8Array, len: number = data.length, seed = 0): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let h = seed | 0;
  const blocks = len & ~3;
  for (let i = 0; i < blocks; i += 4) {
    let k =
      (data[i] as number) |
      ((data[i + 1] as number) << 8) |
      ((data[i + 2] as number) << 16) |
      ((data[i + 3] as number) << 24);
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
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
      k = Math.imul(k, c1);
      k = (k << 15) | (k >>> 17);
      k = Math.imul(k, c2);
      h ^= k;
  }
  h ^= len;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
