import { createBucketer } from './bucketer.ts';

/** 2^32: every murmur3_x86_32 result is below it. */
const HASH_SPACE = 4_294_967_296;

/**
 * Coverage hash version 1, frozen: a user enters an experiment of coverage `c` (0 to 1) when
 * murmur3_x86_32(UTF-8("coverage:" + salt + ":" + userId), seed 0) < c × 2^32. The `coverage:`
 * prefix states what the hash is for and keeps it independent of the arm's bucket, which hashes
 * `salt + ":" + userId` (a salt holds no ":", so no salt's input is a coverage input). The bound
 * c × 2^32 is exact in binary floating point, so every language compares the same numbers; the
 * users admitted at c are among those admitted at any larger c.
 */
export function createCoverage(salt: string, coverage: number): (userId: string) => boolean {
  if (coverage >= 1) return () => true;
  if (!(coverage > 0)) return () => false;
  const hashOf = createBucketer(`coverage:${salt}`, HASH_SPACE);
  const bound = coverage * HASH_SPACE;
  return (userId: string) => hashOf(userId) < bound;
}

/** Whether `userId` is within `coverage` of the experiment salted `salt` (see createCoverage). */
export function inCoverage(salt: string, userId: string, coverage: number): boolean {
  return createCoverage(salt, coverage)(userId);
}
