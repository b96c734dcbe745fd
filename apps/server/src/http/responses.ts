import type { RouteOptions } from 'fastify';
import { PROBLEM_MEDIA_TYPE } from './problem-body.ts';

/** The shared Problem schema (registered with app.addSchema as `Problem`). */
export const PROBLEM_REF = { $ref: 'Problem#' } as const;

/** One problem status as the document declares it: RFC 9457 details as application/problem+json. */
function problemResponse() {
  return {
    description: 'RFC 9457 problem details',
    content: { [PROBLEM_MEDIA_TYPE]: { schema: PROBLEM_REF } },
  };
}

/** Response entries for the problem statuses a route's own logic returns. */
export function problemResponses(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, problemResponse()]));
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

interface RouteSchema {
  body?: unknown;
  params?: unknown;
  querystring?: unknown;
  security?: Array<Record<string, unknown>>;
  response?: Record<string, unknown>;
  hide?: boolean;
}

/**
 * The statuses the edge can answer on a route whatever its handler does, derived from the
 * route's traits so that no route forgets one: a body can be malformed (400), too large (413)
 * or of a type or coding not read (415); a parameter can be invalid (400) or a path segment too
 * long (414); a session route refuses a missing or bad token (401) and a token without an org
 * (403); a keyed route refuses a bad key (401) and a key over its rate (429); a route that
 * writes refuses while the embedded database's disk is nearly full (507); any route may give up
 * on a database call over its time bound (503).
 */
export function edgeStatuses(route: Pick<RouteOptions, 'method' | 'url' | 'config'>): number[] {
  const schema = ((route as { schema?: RouteSchema }).schema ?? {}) as RouteSchema;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const statuses = new Set<number>();
  const config = route.config as { rateLimit?: unknown; readOnly?: boolean } | undefined;
  if (methods.some((m) => BODY_METHODS.has(m))) for (const s of [400, 413, 415]) statuses.add(s);
  if (methods.some((m) => BODY_METHODS.has(m)) && config?.readOnly !== true) statuses.add(507);
  statuses.add(503);
  if (schema.querystring !== undefined) statuses.add(400);
  if (schema.params !== undefined) {
    statuses.add(400);
    statuses.add(414);
  }
  if (schema.security === undefined) {
    statuses.add(401);
    statuses.add(403);
  } else if (schema.security.some((s) => 'apiKey' in s)) {
    statuses.add(401);
    const limited = config?.rateLimit !== false;
    if (limited) statuses.add(429);
  }
  return [...statuses];
}

/** onRoute hook: adds the edge statuses to every documented /v1 and /problems route. */
export function declareEdgeStatuses(route: RouteOptions): void {
  if (!route.url.startsWith('/v1/') && !route.url.startsWith('/problems/')) return;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (methods.every((m) => m === 'HEAD' || m === 'OPTIONS')) return;
  const schema = (route.schema ?? {}) as RouteSchema;
  const response = { ...(schema.response ?? {}) };
  for (const status of edgeStatuses(route)) response[status] ??= problemResponse();
  route.schema = { ...schema, response } as RouteOptions['schema'];
}
