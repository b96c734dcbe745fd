import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BUCKETING_VERSION,
  bucketOf,
  createBucketer,
  encodeUtf8,
  hashUser,
  murmur3x86_32,
  UserHasher,
} from '../src/index.ts';

// The one copy of the shared vectors, read by every implementation.
const testdata = (name: string) =>
  JSON.parse(
    readFileSync(fileURLToPath(new URL(`../../../testdata/${name}`, import.meta.url)), 'utf8'),
  );

interface HashCase {
  input_hex: string;
  seed: number;
  hash: number;
}
interface BucketCase {
  salt: string;
  user_id: string;
  bucket_count: number;
  hash: number;
  bucket: number;
}

describe('murmur3_x86_32 reference vectors', () => {
  const file = testdata('murmur3_x86_32.json');
  it('describes the same algorithm version', () => {
    expect(file.specVersion).toBe(BUCKETING_VERSION);
    expect(file.cases.length).toBeGreaterThan(40);
  });
  for (const c of file.cases as HashCase[]) {
    it(`len ${c.input_hex.length / 2} seed ${c.seed}`, () => {
      const bytes = Buffer.from(c.input_hex, 'hex');
      expect(murmur3x86_32(new Uint8Array(bytes), bytes.length, c.seed)).toBe(c.hash);
    });
  }
});

describe('bucketing vectors', () => {
  const file = testdata('bucketing.json');
  it('describes the same algorithm version', () => {
    expect(file.specVersion).toBe(BUCKETING_VERSION);
  });
  (file.cases as BucketCase[]).forEach((c, i) => {
    it(`case ${i}: bucket_count ${c.bucket_count}`, () => {
      expect(hashUser(c.salt, c.user_id)).toBe(c.hash);
      expect(bucketOf(c.salt, c.user_id, c.bucket_count)).toBe(c.bucket);
      expect(createBucketer(c.salt, c.bucket_count)(c.user_id)).toBe(c.bucket);
      expect(new UserHasher(c.salt).hash(c.user_id)).toBe(c.hash);
    });
  });
});

describe('UTF-8 encoding', () => {
  it('matches TextEncoder, including lone surrogates replaced by U+FFFD', () => {
    const samples = [
      'plain',
      'é',
      'e\u0301',
      '\u{1F600}',
      '\uD800',
      'a\uDC00b',
      '\uDBFF\uDFFF',
      '\u0000',
    ];
    for (const s of samples) {
      const n = encodeUtf8(s);
      const expected = new TextEncoder().encode(s);
      // encodeUtf8 writes into a scratch buffer; hashing both must agree byte for byte
      expect(n).toBe(expected.length);
      expect(hashUser('', s)).toBe(murmur3x86_32(new TextEncoder().encode(`:${s}`)));
    }
  });
});

describe('createBucketer', () => {
  it('agrees with bucketOf for every salt length mod 4 and ids long enough to grow the buffer', () => {
    const salts = ['', 'a', 'ab', 'abc', 'abcd', 'sälté', '\u{1F600}x'];
    const users = ['', 'u', 'user-1', 'é\u{1F600}', 'x'.repeat(5000), '\uD800lone'];
    for (const salt of salts) {
      const bucketer = createBucketer(salt, 9973);
      for (const user of users) expect(bucketer(user)).toBe(bucketOf(salt, user, 9973));
    }
  });
});

describe('createBucketer over random ids', () => {
  // The ASCII path hashes char codes directly; any other id takes the UTF-8 encoder. Both must
  // give exactly the bytes, and so the bucket, of the plain bucketOf.
  const salt = fc.string({ unit: 'binary', maxLength: 12 });
  const bucketCount = fc.integer({ min: 1, max: 0xffffffff });
  it('agrees with bucketOf on ASCII ids, for every salt length mod 4', () => {
    fc.assert(
      fc.property(
        salt,
        fc.string({ unit: 'binary-ascii', maxLength: 40 }),
        bucketCount,
        (s, u, n) => {
          expect(createBucketer(s, n)(u)).toBe(bucketOf(s, u, n));
        },
      ),
      { numRuns: 2000 },
    );
  });
  it('agrees with bucketOf on any UTF-16 id, lone surrogates included', () => {
    const anyUnit = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.string({
        unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
        maxLength: 20,
      }),
    );
    fc.assert(
      fc.property(salt, anyUnit, bucketCount, (s, u, n) => {
        expect(createBucketer(s, n)(u)).toBe(bucketOf(s, u, n));
      }),
      { numRuns: 2000 },
    );
  });
  it('agrees with bucketOf when a non-ASCII char comes in any position of an ASCII id', () => {
    fc.assert(
      fc.property(
        salt,
        fc.string({ unit: 'binary-ascii', maxLength: 20 }),
        fc.nat(),
        fc.constantFrom('é', '\u0080', '\u{1F600}', '\uD800', '\uDFFF', '\uFFFF'),
        (s, ascii, at, other) => {
          const pos = at % (ascii.length + 1);
          const u = ascii.slice(0, pos) + other + ascii.slice(pos);
          expect(createBucketer(s, 10_000)(u)).toBe(bucketOf(s, u, 10_000));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('UserHasher', () => {
  const salt = fc.string({ unit: 'binary', maxLength: 12 });
  const anyId = fc.oneof(
    fc.string({ unit: 'binary-ascii', maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({
      unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
      maxLength: 20,
    }),
  );
  it('hashes exactly as hashUser, ASCII or not, for every salt length mod 4', () => {
    fc.assert(
      fc.property(salt, anyId, (s, u) => {
        expect(new UserHasher(s).hash(u)).toBe(hashUser(s, u));
      }),
      { numRuns: 3000 },
    );
  });
  it('leaves a second hash that depends on the id alone, whatever was hashed before', () => {
    fc.assert(
      fc.property(salt, anyId, anyId, (s, u, other) => {
        const hasher = new UserHasher(s);
        hasher.hash(u);
        const second = hasher.second;
        hasher.hash(other);
        hasher.hash(u);
        expect(hasher.second).toBe(second);
        expect(Number.isInteger(second) && second >= 0 && second < 2 ** 32).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
  it('gives 200,000 similar ids distinct 64-bit pairs and a second lane that spreads', () => {
    const hasher = new UserHasher('s-8f2a');
    const pairs = new Set<bigint>();
    const seconds = new Set<number>();
    const n = 200_000;
    for (let i = 0; i < n; i++) {
      const first = hasher.hash(`user-${i}`);
      pairs.add((BigInt(hasher.second) << 32n) | BigInt(first));
      seconds.add(hasher.second);
    }
    expect(pairs.size).toBe(n);
    // A 32-bit hash of 200,000 ids collides about n^2 / 2^33 = 4.7 times; a weak lane far more.
    expect(n - seconds.size).toBeLessThan(30);
  });
});
