import { SpanKind } from '@opentelemetry/api';
import type pg from 'pg';
import { inSpan, insideRecordingSpan } from '../kernel/tracing.ts';

/**
 * A span per database statement, the child of the span that runs it (a request, a run, a fold
 * stretch). It names the statement's kind (`SELECT`, `INSERT`, `BEGIN`…) and the database
 * system, never the SQL text, its values or its parameters. A statement outside any span (the
 * fold's idle polls, migrations, LISTEN) starts no trace of its own.
 */

/** The statement's first keyword, upper-cased (`WITH` for a CTE); `COPY` for a COPY stream. */
export function statementKind(query: unknown): string {
  const text =
    typeof query === 'string'
      ? query
      : typeof (query as { text?: unknown } | null)?.text === 'string'
        ? (query as { text: string }).text
        : '';
  const keyword = /^[\s(]*([A-Za-z]+)/.exec(text)?.[1];
  return keyword === undefined ? 'UNKNOWN' : keyword.toUpperCase();
}

/** `run`, inside a statement span when a recording span is active. */
export function inStatementSpan<T>(query: unknown, run: () => Promise<T>): Promise<T> {
  if (!insideRecordingSpan()) return run();
  const kind = statementKind(query);
  return inSpan(
    kind,
    {
      'db.system.name': 'postgresql',
      // The attribute's older name, which many backends still read.
      'db.system': 'postgresql',
      'db.operation.name': kind,
    },
    () => run(),
    SpanKind.CLIENT,
  );
}

type QueryFunction = (...args: unknown[]) => unknown;

/** A call in the callback form, or of a submittable query (a COPY stream). */
function notPromised(args: unknown[]): boolean {
  const first = args[0] as { submit?: unknown } | null | undefined;
  return typeof args.at(-1) === 'function' || typeof first?.submit === 'function';
}

/** A pooled client whose `query` is traced; everything else is the client itself. */
function tracedClient(client: pg.PoolClient): pg.PoolClient {
  return new Proxy(client, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (property === 'query')
        return (...args: unknown[]) => {
          // A callback or a stream (COPY) is not a promise: it is left as it is.
          if (notPromised(args)) return (value as QueryFunction).apply(object, args);
          return inStatementSpan(args[0], () =>
            Promise.resolve((value as QueryFunction).apply(object, args)),
          );
        };
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

/**
 * Traces the statements a PostgreSQL pool runs: `pool.query` and the `query` of a client
 * taken with `pool.connect()` (transactions, COPY). The pool stays a `pg.Pool` (Drizzle checks
 * `instanceof`); the pool's own internal calls (its callback form) are left untouched, so no
 * statement is counted twice.
 */
export function traceStatements(pool: pg.Pool): void {
  const query = pool.query.bind(pool) as QueryFunction;
  const connect = pool.connect.bind(pool) as QueryFunction;
  Object.assign(pool, {
    query: (...args: unknown[]) =>
      notPromised(args)
        ? query(...args)
        : inStatementSpan(args[0], () => Promise.resolve(query(...args))),
    connect: (...args: unknown[]) =>
      args.length > 0
        ? connect(...args)
        : (connect() as Promise<pg.PoolClient>).then((client) => tracedClient(client)),
  });
}
