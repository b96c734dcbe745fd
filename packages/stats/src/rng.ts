// xoshiro128** (Blackman & Vigna), seeded through splitmix32. Internal: the permutation test
// needs a reproducible stream across Node versions, which Math.random cannot give.

export interface Rng {
  /** A uniform unsigned 32-bit integer. */
  nextUint32(): number;
  /** A uniform integer in [0, n), unbiased (rejection), for 1 <= n <= 2^32. */
  nextInt(n: number): number;
}

export function createRng(seed: number): Rng {
  let x = seed >>> 0;
  const splitmix32 = (): number => {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let s0 = splitmix32();
  let s1 = splitmix32();
  let s2 = splitmix32();
  let s3 = splitmix32();
  // An all-zero state is the one fixed point of xoshiro; splitmix32 cannot yield four zeros
  // in a row, but the guard keeps the invariant local.
  if ((s0 | s1 | s2 | s3) === 0) s0 = 1;

  const nextUint32 = (): number => {
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl(s3, 11);
    return result;
  };

  const nextInt = (n: number): number => {
    // Reject the top partial block so every residue is equally likely.
    const limit = 0x100000000 - (0x100000000 % n);
    for (;;) {
      const v = nextUint32();
      if (v < limit) return v % n;
    }
  };

  return { nextUint32, nextInt };
}

function rotl(v: number, k: number): number {
  return (v << k) | (v >>> (32 - k));
}
