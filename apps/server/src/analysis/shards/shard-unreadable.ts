/** A shard a run needs could not be read: its position and the driver's reason. */
export class ShardUnreadable extends Error {
  constructor(position: number, reason: string, cause: unknown) {
    super(`shard ${position} unreadable: ${reason}`, { cause });
    this.name = 'ShardUnreadable';
  }
}
