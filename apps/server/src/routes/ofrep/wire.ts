import { EVENT_TEXT_LIMITS } from '@arbiter/contract';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { FREE_FORM_JSON_KEYWORD, freeFormJsonProblem } from '../../schemas/free-form-json.ts';
import { isStorableText, Text } from '../../schemas/text.ts';

/** OFREP's request and answer shapes (docs/integrations/openfeature.md#ofrep-every-other-language). */

const TargetingKey = Text({
  ...EVENT_TEXT_LIMITS.user_id,
  description: 'The user id: the same id `POST /v1/assign` and the clients bucket',
});

const EvaluationContext = Type.Object(
  { targetingKey: TargetingKey },
  {
    additionalProperties: true,
    [FREE_FORM_JSON_KEYWORD]: true,
    description:
      'targetingKey is the user id; every other field is a targeting attribute, as `attributes` of `POST /v1/assign`',
  },
);

export const EvaluationRequest = Type.Object(
  { context: EvaluationContext },
  { additionalProperties: true },
);

const Metadata = Type.Object({
  experimentId: Type.String({ description: 'The experiment’s id' }),
  configVersion: Type.Integer({ description: 'The org’s config version evaluated' }),
});

export const REASONS = ['SPLIT', 'STATIC', 'DEFAULT', 'DISABLED'] as const;

export const EvaluationSuccess = Type.Object({
  key: Type.String(),
  reason: Type.Enum(REASONS, {
    description:
      'SPLIT: assigned by bucket; STATIC: a stopped experiment’s served variant; DEFAULT: the user is excluded (targeting, holdout, layer, allocation) or the variant lacks the variable; DISABLED: a draft experiment',
  }),
  variant: Type.Optional(Type.String({ description: 'The variant’s key; absent when none' })),
  value: Type.Optional(
    Type.Unknown({
      description:
        'EXPERIMENT: the variant’s variables object; EXPERIMENT:$variant: its key; EXPERIMENT:NAME: that variable. Absent: use the code default',
    }),
  ),
  metadata: Metadata,
});

export const ERROR_CODES = [
  'PARSE_ERROR',
  'TARGETING_KEY_MISSING',
  'INVALID_CONTEXT',
  'GENERAL',
] as const;
export type OfrepErrorCode = (typeof ERROR_CODES)[number];

export const EvaluationFailure = Type.Object({
  key: Type.Optional(Type.String()),
  errorCode: Type.Enum(ERROR_CODES),
  errorDetails: Type.String(),
});

export const FlagNotFound = Type.Object({
  key: Type.String(),
  errorCode: Type.Enum(['FLAG_NOT_FOUND']),
  errorDetails: Type.String(),
});

export interface ContextFailure {
  errorCode: OfrepErrorCode;
  errorDetails: string;
}

export interface ReadContext {
  userId: string;
  attributes: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The user and attributes of a request's context, or OFREP's error for a context that has none. */
export function readContext(body: unknown): ReadContext | ContextFailure {
  const context = isObject(body) ? body.context : undefined;
  if (!isObject(context))
    return { errorCode: 'INVALID_CONTEXT', errorDetails: 'context must be a JSON object' };
  const { targetingKey, ...attributes } = context;
  if (targetingKey === undefined || targetingKey === '')
    return {
      errorCode: 'TARGETING_KEY_MISSING',
      errorDetails: 'context.targetingKey (the user id) is required',
    };
  if (typeof targetingKey !== 'string')
    return { errorCode: 'INVALID_CONTEXT', errorDetails: 'context.targetingKey must be a string' };
  const { maxLength } = EVENT_TEXT_LIMITS.user_id;
  if (targetingKey.length > maxLength || !isStorableText(targetingKey))
    return {
      errorCode: 'INVALID_CONTEXT',
      errorDetails: `context.targetingKey must be at most ${maxLength} characters, with no NUL or unpaired surrogate`,
    };
  const problem = freeFormJsonProblem(context);
  if (problem !== null)
    return {
      errorCode: 'INVALID_CONTEXT',
      errorDetails: `context${problem.pointer === '' ? '' : ` at ${problem.pointer}`}: ${problem.detail}`,
    };
  return { userId: targetingKey, attributes };
}

/**
 * The request's user and attributes. A body the schema admitted is read as it is (the schema
 * checked the targeting key and the free-form limit); a refused one is examined for OFREP's code.
 */
export function contextOf(request: FastifyRequest): ReadContext | ContextFailure {
  const refused = request.validationError;
  if (refused === undefined) {
    const { targetingKey, ...attributes } = (request.body as Static<typeof EvaluationRequest>)
      .context;
    return { userId: targetingKey, attributes };
  }
  if (refused.validationContext === 'params')
    return { errorCode: 'GENERAL', errorDetails: `The flag key ${refused.message}` };
  const read = readContext(request.body);
  return 'errorCode' in read
    ? read
    : { errorCode: 'INVALID_CONTEXT', errorDetails: `context: ${refused.message}` };
}

/** Whether the error is a body that could not be read as JSON: OFREP's PARSE_ERROR. */
function isParseError(error: FastifyError): boolean {
  return (
    error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    (error.statusCode === 400 && error instanceof SyntaxError)
  );
}

/**
 * The plane's error handler: a body that is not JSON is OFREP's PARSE_ERROR, in OFREP's shape;
 * everything else is the API's problem, from the handler above it.
 */
export function parseErrorHandler(
  parent: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => unknown,
) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (request.is404 || !isParseError(error)) return parent(error, request, reply);
    const key = (request.params as { key?: string } | undefined)?.key;
    return reply.code(400).send({
      ...(key === undefined ? {} : { key }),
      errorCode: 'PARSE_ERROR',
      errorDetails: 'The body could not be parsed as JSON',
    });
  };
}
