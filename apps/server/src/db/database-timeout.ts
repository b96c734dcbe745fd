import type { PGlite, Transaction as PGliteTransaction } from '@electric-sql/pglite';
import { QUERY_CANCELED, sqlStateOf } from './pg-error-codes.ts';
import { inStatementSpan } from './statement-spans.ts';

/** A database call that did not finish in time; the edge answers it 503 with `Retry-After`. */
export class DatabaseTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`a database call took longer than ${timeoutMs} ms`);
    this.name = 'DatabaseTimeout';
  }
}

/** Whether `error` is a call that ran out of time: ours on PGlite, the server's on PostgreSQL. */
export function isDatabaseTimeout(error: unknown): boolean {
  if (error instanceof DatabaseTimeout) return true;
  // `statement_timeout` raises query_canceled
  return sqlStateOf(error) === QUERY_CANCELED;
}

/**
 * `work`, or a DatabaseTimeout after `ms`. The caller stops waiting; PGlite's single
 * connection finishes the call on its own and takes the next one after it.
 */
export function withinTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseTimeout(ms)), ms);
  });
  // A call given up on may still fail later: that failure has no one left to tell.
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

type Bounded = Pick<PGliteTransaction, 'query' | 'exec'>;

/** Each statement, in a span of its own when `traced` (see statement-spans.ts). */
function boundCalls<T extends Bounded>(target: T, ms: number, traced: boolean): T {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (property === 'query' || property === 'exec')
        return (...args: unknown[]) => {
          const run = () => (value as (...a: unknown[]) => Promise<unknown>).apply(object, args);
          return withinTimeout(traced ? inStatementSpan(args[0], run) : run(), ms);
        };
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

/**
 * The embedded database with every call bounded: each statement, in or out of a transaction,
 * and the wait for a transaction to begin (PGlite has one connection, so a call that never
 * ends would otherwise hold every later one forever). A transaction as a whole is not
 * bounded: the nightly analysis runs many bounded statements in one. With `traced`, this is
 * also where each statement gets its span: every call of the embedded database passes here.
 */
export function boundedPglite(client: PGlite, ms: number, traced = false): PGlite {
  return new Proxy(client, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (property === 'query' || property === 'exec')
        return boundCalls(object, ms, traced)[property];
      if (property === 'transaction')
        return <T>(work: (tx: PGliteTransaction) => Promise<T>) => {
          let begun: () => void = () => {};
          const beginning = new Promise<void>((resolve) => {
            begun = resolve;
          });
          let abandoned = false;
          const done = object.transaction(async (tx) => {
            // The caller was told it timed out: roll back rather than write behind its back.
            if (abandoned) throw new DatabaseTimeout(ms);
            begun();
            return work(boundCalls(tx, ms, traced));
          });
          // A transaction that cannot begin (the database closed) fails now, not at the bound.
          const begins = Promise.race([beginning, done.then(() => {})]);
          return withinTimeout(begins, ms).then(
            () => done,
            (error: unknown) => {
              abandoned = true;
              done.catch(() => {});
              throw error;
            },
          );
        };
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}
