import { EVENT_TYPES } from '@arbiter/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../db/connect.ts';
import { withinTimeout } from '../db/database-timeout.ts';
import type { ShardSet } from '../db/shards/shard-set.ts';
import { foldBacklog } from '../ingest/fold-lag.ts';
import type { EventOutcome, Metrics, RunKind, RunOutcome } from '../kernel/ports.ts';

/** A scrape waits this long for the fold's numbers at most; past it they keep their last value. */
const SCRAPE_DATABASE_TIMEOUT_MS = 2000;

/** What the metrics read at a scrape: the database, the server's pool (null on PGlite) and the shards. */
export interface MetricsDeps {
  db: Database;
  pool: pg.Pool | null;
  /** Where the fold runs: its backlog is read from every shard. */
  shards: ShardSet;
}

const EVENT_OUTCOMES: readonly EventOutcome[] = ['accepted', 'duplicate', 'refused', 'quarantined'];
const EVENT_TYPE_LABELS: ReadonlySet<string> = new Set(EVENT_TYPES);
const RUN_OUTCOMES: Record<RunKind, readonly RunOutcome[]> = {
  nightly: ['succeeded', 'failed', 'skipped'],
  manual: ['succeeded', 'failed'],
};

function foldGauges(registry: Registry, deps: Pick<MetricsDeps, 'shards'>): void {
  let backlog = 0;
  let lag = 0;
  // Read once per scrape: prom-client collects each gauge, and both read the one answer.
  let reading: Promise<void> | null = null;
  const read = () => {
    reading ??= withinTimeout(foldBacklog(deps), SCRAPE_DATABASE_TIMEOUT_MS)
      .then((found) => {
        backlog = found.events;
        lag = found.lagSeconds;
      })
      .catch(() => {})
      .finally(() => {
        reading = null;
      });
    return reading;
  };
  new Gauge({
    name: 'arbiter_fold_backlog_events',
    help: 'Stored events not yet folded into the aggregates',
    registers: [registry],
    async collect() {
      await read();
      this.set(backlog);
    },
  });
  new Gauge({
    name: 'arbiter_fold_lag_seconds',
    help: 'How long the oldest stored event not yet folded has waited, in seconds',
    registers: [registry],
    async collect() {
      await read();
      this.set(lag);
    },
  });
}

/** The PostgreSQL server's connection pool, read at each scrape; PGlite has none to show. */
function poolGauges(registry: Registry, pool: pg.Pool): void {
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  gauge(
    'arbiter_db_pool_connections',
    'Connections the PostgreSQL pool holds open, busy or idle',
    () => pool.totalCount,
  );
  gauge(
    'arbiter_db_pool_idle_connections',
    'Open connections of the PostgreSQL pool that no query is using',
    () => pool.idleCount,
  );
  gauge(
    'arbiter_db_pool_waiting_requests',
    'Queries waiting for a connection of the PostgreSQL pool because every connection is busy',
    () => pool.waitingCount,
  );
}

function workCounters(registry: Registry) {
  const events = new Counter({
    name: 'arbiter_events_total',
    help: 'Events by type and outcome: accepted (stored), duplicate (a retry acknowledged again), refused, quarantined by the fold',
    labelNames: ['type', 'outcome'] as const,
    registers: [registry],
  });
  const runs = new Counter({
    name: 'arbiter_analysis_runs_total',
    help: 'Analysis runs finished, by kind (nightly, manual) and outcome',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });
  const runDuration = new Histogram({
    name: 'arbiter_analysis_run_duration_seconds',
    help: 'Time an analysis run took, in seconds, by kind (nightly, manual) and outcome',
    labelNames: ['kind', 'outcome'] as const,
    buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 1800, 3600, 7200],
    registers: [registry],
  });
  const judgeCalls = new Counter({
    name: 'arbiter_judge_calls_total',
    help: 'Calls to the judge model, by outcome (succeeded: a score came back)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  // Every series exists from the start at 0, so a rate or an alert sees its first increase.
  for (const type of [...EVENT_TYPES, 'unknown'])
    for (const outcome of EVENT_OUTCOMES) events.inc({ type, outcome }, 0);
  for (const [kind, outcomes] of Object.entries(RUN_OUTCOMES))
    for (const outcome of outcomes) {
      runs.inc({ kind, outcome }, 0);
      runDuration.zero({ kind, outcome });
    }
  for (const outcome of ['succeeded', 'failed']) judgeCalls.inc({ outcome }, 0);
  return { events, runs, runDuration, judgeCalls };
}

/**
 * The process's Prometheus metrics, in a registry of its own (never prom-client's global one,
 * so every context a test builds counts on its own). Labels are bounded: a route's template
 * (`/v1/experiments/:id`, or `unmatched`), the method, the status class, an event type, an
 * outcome, a run kind; never an org, user, experiment or event id.
 */
export function createMetrics(deps: MetricsDeps): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'arbiter_' });
  const requests = new Counter({
    name: 'arbiter_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'arbiter_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, in seconds, by method, route template and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  foldGauges(registry, deps);
  if (deps.pool !== null) poolGauges(registry, deps.pool);
  const work = workCounters(registry);
  return {
    countEvents(type, outcome, count) {
      if (count <= 0) return;
      const label = type !== null && EVENT_TYPE_LABELS.has(type) ? type : 'unknown';
      work.events.inc({ type: label, outcome }, count);
    },
    observeRun(kind, outcome, seconds) {
      work.runs.inc({ kind, outcome });
      work.runDuration.observe({ kind, outcome }, seconds);
    },
    countJudgeCall(outcome) {
      work.judgeCalls.inc({ outcome });
    },
    observeRequest(method, route, statusClass, seconds) {
      const labels = { method, route, status_class: statusClass };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
    async scrape() {
      return { contentType: registry.contentType, text: await registry.metrics() };
    },
  };
}

/** The `onResponse` hook that counts every answered request by its route's template. */
export function requestMetricsHook(metrics: Metrics) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    metrics.observeRequest(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      `${Math.floor(reply.statusCode / 100)}xx`,
      reply.elapsedTime / 1000,
    );
  };
}
