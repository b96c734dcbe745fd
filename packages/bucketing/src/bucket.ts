import { murmur3x86_32 } from './murmur3.ts';
import { encodeUtf8, scratchBytes } from './utf8.ts';

/** Bucketing hash version 1: murmur3_x86_32(UTF-8(salt + ":" + userId), seed 0) mod bucketCount. */
export function hashUser(salt: string, userId: string): number {
  const len = encodeUtf8(`${salt}:${userId}`);
  return murmur3x86_32(scratchBytes(), len, 0);
}

export function bucketOf(salt: string, userId: string, bucketCount: number): number {
  return hashUser(salt, userId) % bucketCount;
}
