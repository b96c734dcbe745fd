import { answersOfShards } from './shard-not-answering.ts';

/**
 * The rows of every shard's ordered stream as one stream in the same order: each shard keeps
 * its users' rows sorted by `before`, so taking the least head each time gives the order one
 * database would (a k-way merge; a shard count is small, so the heads are scanned). Every
 * shard's first rows are read at once, so a shard that does not answer fails the merge before
 * anything is yielded.
 */
export async function* mergeInOrder<T>(
  streams: readonly AsyncIterator<T>[],
  before: (a: T, b: T) => boolean,
): AsyncGenerator<T> {
  const heads = await answersOfShards(streams.map((s) => s.next()));
  for (;;) {
    let least = -1;
    for (const [i, head] of heads.entries()) {
      if (head.done) continue;
      const current = heads[least];
      if (current === undefined || current.done || before(head.value, current.value)) least = i;
    }
    const taken = heads[least];
    if (taken === undefined || taken.done) return;
    yield taken.value;
    heads[least] = await (streams[least] as AsyncIterator<T>).next();
  }
}
