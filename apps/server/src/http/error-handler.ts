import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseTimeout } from '../db/database-timeout.ts';
import { isDiskFull } from '../db/disk-full.ts';
import { isShardNotAnswering, type ShardNotAnswering } from '../db/shards/shard-not-answering.ts';
import { isEventLogUnavailable } from '../ingest/event-log-unavailable.ts';
import { isModelTextUnavailable } from '../ingest/offload-text.ts';
import { refuseContentEncoding } from './content-encoding.ts';
import { DISK_RETRY_AFTER_SECONDS } from './disk-space-hook.ts';
import { problemOfOutcome } from './outcome-problems.ts';
import { PROBLEM_MEDIA_TYPE, problemBody } from './problem-body.ts';
import { ProblemError, type ProblemSlug } from './problems.ts';
import { MAX_PARAM_LENGTH, RouteMethods } from './route-methods.ts';

interface ValidationIssue {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

function send(
  reply: FastifyReply,
  request: FastifyRequest,
  slug: ProblemSlug,
  detail: string,
  extra: Record<string, unknown> = {},
) {
  const body = problemBody(slug, detail, pathOf(request), extra);
  reply.status(body.status).type(PROBLEM_MEDIA_TYPE).send(body);
}

/** A JSON pointer to the offending member: the missing property for `required`, the path otherwise. */
function pointerOf(issue: ValidationIssue): string {
  const path = issue.instancePath;
  if (issue.keyword === 'required') return `${path}/${String(issue.params.missingProperty)}`;
  if (issue.keyword === 'additionalProperties')
    return `${path}/${String(issue.params.additionalProperty)}`;
  return path === '' ? '' : path;
}

function describe(issue: ValidationIssue): string {
  if (issue.keyword === 'additionalProperties') return 'is not a known field';
  if (issue.keyword === 'required') return 'is required';
  return issue.message ?? 'is not valid';
}

const DATABASE_RETRY_AFTER_SECONDS = 5;
/** A broker failover (a new partition leader) takes seconds: long enough for one to finish. */
const EVENT_LOG_RETRY_AFTER_SECONDS = 5;
/** A shard restarting or failing over takes seconds; the client's backoff grows from here. */
const SHARD_RETRY_AFTER_SECONDS = 5;
/** An object store that did not take a batch's text: the same pause as the log's. */
const MODEL_TEXT_RETRY_AFTER_SECONDS = 5;

/** Client errors Fastify raises with a status of their own, by that status. */
const CLIENT_ERROR_SLUGS: Record<number, ProblemSlug> = {
  400: 'bad-request',
  405: 'method-not-allowed',
  408: 'request-timeout',
  413: 'payload-too-large',
  414: 'uri-too-long',
  415: 'unsupported-media-type',
  431: 'header-fields-too-large',
};

function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? request.url;
}

/**
 * Errors Fastify meets while routing, before a route or its error handler exists: a URL that is
 * not valid percent-encoding, a path segment over the router's 100 characters.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return send(
      reply,
      request,
      'uri-too-long',
      `A path segment exceeds ${MAX_PARAM_LENGTH} characters`,
    );
  if (error.code === 'FST_ERR_BAD_URL')
    return send(reply, request, 'bad-request', 'The URL is not valid percent-encoding');
  return sendInternalError(error, 'routing failed', request, reply);
}

/** No route for this method and path: 405 with `Allow` when the path answers other methods. */
function notRouted(routes: RouteMethods, request: FastifyRequest, reply: FastifyReply) {
  const path = pathOf(request);
  const allowed = routes.allowed(path);
  if (allowed.length === 0)
    return send(reply, request, 'not-found', `No route ${request.method} ${path}`);
  reply.header('allow', allowed.join(', '));
  return send(
    reply,
    request,
    'method-not-allowed',
    `${path} answers ${allowed.join(', ')}, not ${request.method}`,
  );
}

/** Schema validation failures: one problem listing every invalid field. */
function sendValidation(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const part = error.validationContext ?? 'body';
  const issues = error.validation as unknown as ValidationIssue[];
  const errors = issues.map((issue) => {
    const pointer = pointerOf(issue);
    return part === 'body'
      ? { pointer: `#${pointer}`, detail: describe(issue) }
      : { parameter: pointer.replace(/^\//, '') || part, detail: describe(issue) };
  });
  const first = errors[0];
  const where = first ? ('pointer' in first ? first.pointer : first.parameter) : part;
  return send(
    reply,
    request,
    'validation-error',
    `${errors.length} invalid field${errors.length === 1 ? '' : 's'} in the ${part}; first: ${where} ${first?.detail ?? ''}`.trim(),
    { errors },
  );
}

/** Framework and parser errors that have a catalogue entry of their own; null for anything else. */
function frameworkAnswer(
  error: FastifyError,
  request: FastifyRequest,
): { slug: ProblemSlug; detail: string } | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        slug: 'unsupported-media-type',
        detail: `Content-Type ${request.headers['content-type'] ?? '(none)'} is not accepted here`,
      };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { slug: 'payload-too-large', detail: error.message };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return {
        slug: 'malformed-json',
        detail: 'The body is empty but Content-Type is application/json',
      };
  }
  if (
    error.statusCode === 400 &&
    (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY')
  ) {
    return { slug: 'malformed-json', detail: 'The body could not be parsed as JSON' };
  }
  if (error.statusCode === 413)
    return { slug: 'payload-too-large', detail: 'The body exceeds the size limit' };
  if (error.statusCode === 415)
    return { slug: 'unsupported-media-type', detail: 'This content type is not accepted here' };
  // Fastify's own client errors (a Content-Length that does not match the body, ...) carry
  // a 4xx and a message written for the client.
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500 && error.code?.startsWith('FST_'))
    return { slug: CLIENT_ERROR_SLUGS[status] ?? 'bad-request', detail: error.message };
  return null;
}

/** A database call over its bound: logged once per request, answered as a retryable 503. */
/**
 * A write met a full disk before the free-space guard's reading caught it (the disk filled
 * within a reading's second, or the threshold is below what one write takes): the database
 * rolled the write back, so nothing of the request was stored. The same 507 as the guard's;
 * writes resume by themselves once space is freed.
 */
function sendDiskFull(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  request.log.warn({ err: error }, 'a write met a full disk; nothing of the request was stored');
  reply.header('retry-after', String(DISK_RETRY_AFTER_SECONDS));
  return send(
    reply,
    request,
    'insufficient-storage',
    `Request ${request.id}: the database's disk is full, so nothing of the request was stored; reads go on. Writes resume by themselves once space is freed: retry with the same event ids.`,
  );
}

/** A failure the client cannot act on: the cause goes to the log, the request id to the client. */
function sendInternalError(
  error: unknown,
  logMessage: string,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  request.log.error({ err: error }, logMessage);
  return send(
    reply,
    request,
    'internal-error',
    `Request ${request.id} failed; the server log has the cause`,
  );
}

function sendDatabaseTimeout(request: FastifyRequest, reply: FastifyReply) {
  request.log.warn('a database call exceeded ARBITER_DATABASE_TIMEOUT_MS');
  reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
  return send(
    reply,
    request,
    'database-timeout',
    `Request ${request.id} waited too long for the database and was given up; retry it`,
  );
}

/**
 * A store behind the request did not take its write, so nothing was stored or metered: logged
 * with its cause, and answered with when to retry the same request.
 */
function sendStoreUnavailable(
  error: Error,
  request: FastifyRequest,
  reply: FastifyReply,
  store: { log: string; retryAfterSeconds: number; slug: ProblemSlug; detail: string },
) {
  request.log.warn({ err: error.cause }, store.log);
  reply.header('retry-after', String(store.retryAfterSeconds));
  return send(reply, request, store.slug, `Request ${request.id}: ${store.detail}`);
}

/** The log (Kafka) did not acknowledge a batch: nothing was claimed or metered; retry it. */
const EVENT_LOG_DOWN = {
  log: 'the event log did not acknowledge a batch',
  retryAfterSeconds: EVENT_LOG_RETRY_AFTER_SECONDS,
  slug: 'event-log-unavailable',
  detail: 'the event log did not take the batch; nothing was stored, retry it',
} as const;

/** The object store did not take a batch's text: nothing was appended or metered; retry it. */
const MODEL_TEXT_DOWN = {
  log: 'the object store did not take model text',
  retryAfterSeconds: MODEL_TEXT_RETRY_AFTER_SECONDS,
  slug: 'model-text-unavailable',
  detail: 'the object store did not take the model text; nothing was stored, retry it',
} as const;

/**
 * A shard did not answer: a read sent nothing partial; a batch's other parts are stored. Either
 * way the client retries the same request.
 */
function sendShardNotAnswering(
  error: ShardNotAnswering,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const write = error.during === 'write';
  request.log.warn(
    { shards: error.positions, err: error.cause },
    write
      ? 'an event data shard did not answer; its part of the batch was not stored'
      : 'an event data shard did not answer a read; nothing partial was answered',
  );
  reply.header('retry-after', String(SHARD_RETRY_AFTER_SECONDS));
  const detail = write
    ? "the database holding some of the batch's users did not answer; the other events are stored, retry the batch with the same event ids"
    : "a database holding some of the users' event data did not answer; nothing of the answer was sent, retry it";
  return send(reply, request, 'shard-unavailable', `Request ${request.id}: ${detail}`);
}

/**
 * Three tiers: our own problems; framework and validation errors mapped to their catalogue
 * entries; anything else logged with the request id and answered as a generic 500, so no
 * stack trace or SQL ever reaches a client.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  const routes = new RouteMethods();
  app.addHook('onRoute', (route) => routes.add(route.method, route.url));
  app.addHook('onRequest', refuseContentEncoding);

  app.setErrorHandler((error: FastifyError, request, reply) => {
    // Routing comes first: an unrouted request that also fails to parse is still a 404/405.
    if (request.is404) return notRouted(routes, request, reply);
    const problem = error instanceof ProblemError ? error : problemOfOutcome(error);
    if (problem !== null) {
      for (const [k, v] of Object.entries(problem.headers)) reply.header(k, v);
      return send(reply, request, problem.slug, problem.detail, problem.extra);
    }
    if (error.validation) return sendValidation(error, request, reply);
    const answer = frameworkAnswer(error, request);
    if (answer !== null) return send(reply, request, answer.slug, answer.detail);
    if (isDatabaseTimeout(error)) return sendDatabaseTimeout(request, reply);
    if (isDiskFull(error)) return sendDiskFull(error, request, reply);
    if (isEventLogUnavailable(error))
      return sendStoreUnavailable(error, request, reply, EVENT_LOG_DOWN);
    if (isShardNotAnswering(error)) return sendShardNotAnswering(error, request, reply);
    if (isModelTextUnavailable(error))
      return sendStoreUnavailable(error, request, reply, MODEL_TEXT_DOWN);
    return sendInternalError(error, 'unhandled error', request, reply);
  });

  app.setNotFoundHandler((request, reply) => notRouted(routes, request, reply));
}
