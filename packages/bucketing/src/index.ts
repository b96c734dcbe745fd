export { bucketOf, hashUser } from './bucket.ts';
export { createBucketer, UserHasher } from './bucketer.ts';
export { createCoverage, inCoverage } from './coverage.ts';
export { murmur3x86_32 } from './murmur3.ts';
export { type BucketRange, variantForBucket } from './ranges.ts';
export { shardOf } from './shard.ts';
export { encodeUtf8 } from './utf8.ts';

/** The bucketing algorithm version the vectors in testdata/ describe. */
export const BUCKETING_VERSION = '1';
