import type { Database } from '../../db/connect.ts';
import type { ShardSet } from '../../db/shards/shard-set.ts';
import { inAnalysisTransaction } from '../run/analysis-transaction.ts';
import { scatter } from './scatter.ts';

/**
 * Two phases on every shard at once, each shard's in one analysis transaction, so that the
 * second phase reads what the first left there (a temporary table): `first` on every shard,
 * then, once all have answered, `combine` of their answers in the coordinator, then `second`
 * on every shard with it. A shard that fails ends every shard's transaction and the read.
 */
export async function scatterTwoPhase<A, M, B>(
  shards: ShardSet,
  first: (tx: Database) => Promise<A>,
  combine: (firsts: A[]) => M,
  second: (tx: Database, combined: M) => Promise<B>,
  /** `snapshot`: both phases of a shard see one snapshot (repeatable read). */
  options: { snapshot?: boolean } = {},
): Promise<{ firsts: A[]; combined: M; seconds: B[] }> {
  const arrived = shards.all.map(() => deferred<A>());
  const gate = deferred<M>();
  gate.promise.catch(() => {});
  const seconds = scatter(shards, (db, position) =>
    inAnalysisTransaction(
      db,
      async (tx) => {
        (arrived[position] as Deferred<A>).resolve(await first(tx));
        return second(tx, await gate.promise);
      },
      // Every two-phase read may keep rows in a temporary table: each asks for the same buffers.
      { ...options, temporaryRows: true },
    ),
  );
  try {
    // A shard failing before its first answer fails `seconds` first: the race ends then.
    const firsts = await Promise.race([
      Promise.all(arrived.map((a) => a.promise)),
      seconds.then((): never => {
        throw new Error('a shard ended before the first phase was combined');
      }),
    ]);
    const combined = combine(firsts);
    gate.resolve(combined);
    return { firsts, combined, seconds: await seconds };
  } catch (error) {
    gate.reject(error);
    await seconds.catch(() => {});
    throw error;
  }
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

/** A promise with its settling functions (Promise.withResolvers, which Node 20 lacks). */
function deferred<T>(): Deferred<T> {
  let resolve: (value: T) => void = () => {};
  let reject: (reason: unknown) => void = () => {};
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}
