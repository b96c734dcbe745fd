import { SpanKind } from '@opentelemetry/api';
import type pg from 'pg';
import { inSpan, insideRecordingSpan, recordFailure, tracer } from '../kernel/tracing.ts';

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

function attributesOf(kind: string) {
  return {
    'db.system.name': 'postgresql',
    // The attribute's older name, which many backends still read.
    'db.system': 'postgresql',
    'db.operation.name': kind,
  };
}

/** `run`, inside a statement span when a recording span is active. */
export function inStatementSpan<T>(query: unknown, run: () => Promise<T>): Promise<T> {
  if (!insideRecordingSpan()) return run();
  const kind = statementKind(query);
  return inSpan(kind, attributesOf(kind), () => run(), SpanKind.CLIENT);
}

interface Emitter {
  once(event: string, listener: (error?: unknown) => void): unknown;
}

/**
 * A submitted statement (COPY) as a span from its start until it ends or fails: a stream
 * (pg-copy-streams) until it finishes, closes or fails, or a `CopyInOneWrite` until its `done`
 * settles.
 */
function streamSpan<T>(query: unknown, stream: T): T {
  const emitter = stream as unknown as Partial<Emitter> & { done?: unknown };
  const done = emitter.done instanceof Promise ? emitter.done : undefined;
  if (!insideRecordingSpan() || (done === undefined && typeof emitter.once !== 'function'))
    return stream;
  const kind = statementKind(query);
  const span = tracer().startSpan(kind, { kind: SpanKind.CLIENT, attributes: attributesOf(kind) });
  let ended = false;
  const end = (error?: unknown) => {
    if (ended) return;
    ended = true;
    if (error !== undefined) recordFailure(span, error);
    span.end();
  };
  if (done !== undefined) {
    done.then(
      () => end(),
      (error: unknown) => end(error ?? new Error('statement failed')),
    );
    return stream;
  }
  for (const event of ['finish', 'end', 'close']) emitter.once?.call(stream, event, () => end());
  emitter.once?.call(stream, 'error', (error) => end(error ?? new Error('stream failed')));
  return stream;
}

type QueryFunction = (...args: unknown[]) => unknown;

/** A call in the callback form: the pool's own, or a caller's not awaiting a promise. */
function withCallback(args: unknown[]): boolean {
  return typeof args.at(-1) === 'function';
}

/** A submittable query (a COPY): `query` returns it, not a promise. */
function submittable(args: unknown[]): boolean {
  return typeof (args[0] as { submit?: unknown } | null | undefined)?.submit === 'function';
}

/** A pooled client whose `query` is traced; everything else is the client itself. */
function tracedClient(client: pg.PoolClient): pg.PoolClient {
  return new Proxy(client, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (property === 'query')
        return (...args: unknown[]) => {
          const call = () => (value as QueryFunction).apply(object, args);
          if (withCallback(args)) return call();
          if (submittable(args)) return streamSpan(args[0], call());
          return inStatementSpan(args[0], () => Promise.resolve(call()));
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
      withCallback(args) || submittable(args)
        ? query(...args)
        : inStatementSpan(args[0], () => Promise.resolve(query(...args))),
    connect: (...args: unknown[]) =>
      args.length > 0
        ? connect(...args)
        : (connect() as Promise<pg.PoolClient>).then((client) => tracedClient(client)),
  });
}
