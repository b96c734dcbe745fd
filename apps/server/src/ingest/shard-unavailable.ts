/**
 * A part of a batch could not be stored because its shard is down: the other parts are stored
 * and metered, this one is not, and the client is to send the batch again (its stored events
 * come back as duplicates, metered once). The edge answers 503 with `Retry-After`.
 */
export class ShardUnavailable extends Error {
  constructor(
    readonly positions: readonly number[],
    cause: unknown,
  ) {
    super(`event data shard(s) ${positions.join(', ')} did not answer`, { cause });
    this.name = 'ShardUnavailable';
  }
}

export function isShardUnavailable(error: unknown): error is ShardUnavailable {
  return error instanceof ShardUnavailable;
}
