import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PROBLEM_MEDIA_TYPE, problemBody } from './problem-body.ts';
import { ProblemError, type ProblemSlug } from './problems.ts';

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
  const body = problemBody(slug, detail, request.url.split('?')[0] ?? request.url, extra);
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

/**
 * Three tiers: our own problems; framework and validation errors mapped to their catalogue
 * entries; anything else logged with the request id and answered as a generic 500, so no
 * stack trace or SQL ever reaches a client.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ProblemError) {
      for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
      return send(reply, request, error.slug, error.detail, error.extra);
    }
    if (error.validation) {
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
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return send(
          reply,
          request,
          'unsupported-media-type',
          `Content-Type ${request.headers['content-type'] ?? '(none)'} is not accepted here`,
        );
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return send(reply, request, 'payload-too-large', error.message);
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return send(
          reply,
          request,
          'malformed-json',
          'The body is empty but Content-Type is application/json',
        );
    }
    if (
      error.statusCode === 400 &&
      (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY')
    ) {
      return send(reply, request, 'malformed-json', 'The body could not be parsed as JSON');
    }
    if (error.statusCode === 413)
      return send(reply, request, 'payload-too-large', 'The body exceeds the size limit');
    if (error.statusCode === 415)
      return send(
        reply,
        request,
        'unsupported-media-type',
        'This content type is not accepted here',
      );
    request.log.error({ err: error }, 'unhandled error');
    return send(
      reply,
      request,
      'internal-error',
      `Request ${request.id} failed; the server log has the cause`,
    );
  });

  app.setNotFoundHandler((request, reply) => {
    send(reply, request, 'not-found', `No route ${request.method} ${request.url.split('?')[0]}`);
  });
}
