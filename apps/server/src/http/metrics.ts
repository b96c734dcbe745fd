import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Context } from '../context.ts';
import { withinTimeout } from '../db/database-timeout.ts';
import { foldBacklog } from '../ingest/fold-lag.ts';

/** A scrape waits this long for the fold's numbers at most; past it they keep their last value. */
const SCRAPE_DATABASE_TIMEOUT_MS = 2000;

/**
 * The process's Prometheus metrics, in a registry of its own (never prom-client's global one,
 * so every app a test builds counts on its own). Labels are bounded: a route's template
 * (`/v1/experiments/:id`, or `unmatched`), the method, the status class; never an org, user,
 * experiment or event id.
 */
export interface Metrics {
  registry: Registry;
  onResponse(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

function foldGauges(registry: Registry, deps: Pick<Context, 'db'>) {
  const backlog = new Gauge({
    name: 'arbiter_fold_backlog_events',
    help: 'Stored events not yet folded into the aggregates',
    registers: [registry],
  });
  const lag = new Gauge({
    name: 'arbiter_fold_lag_seconds',
    help: 'How long the oldest stored event not yet folded has waited, in seconds',
    registers: [registry],
  });
  // Read once per scrape (prom-client calls collect of each metric; both read one answer).
  let reading: Promise<void> | null = null;
  const read = () => {
    reading ??= withinTimeout(foldBacklog(deps), SCRAPE_DATABASE_TIMEOUT_MS)
      .then((found) => {
        backlog.set(found.events);
        lag.set(found.lagSeconds);
      })
      .catch(() => {})
      .finally(() => {
        reading = null;
      });
    return reading;
  };
  Object.assign(backlog, { collect: read });
  Object.assign(lag, { collect: read });
}

export function createMetrics(deps: Pick<Context, 'db'>): Metrics {
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
  return {
    registry,
    async onResponse(request, reply) {
      const labels = {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_class: `${Math.floor(reply.statusCode / 100)}xx`,
      };
      requests.inc(labels);
      duration.observe(labels, reply.elapsedTime / 1000);
    },
  };
}
