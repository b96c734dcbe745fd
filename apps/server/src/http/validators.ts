import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchema } from 'fastify';

/**
 * Bodies are validated strictly (no type coercion, unknown fields rejected, every error
 * reported); query strings and path params are coerced from text, as they must be.
 */
function ajv(options: Options): Ajv {
  const instance = new Ajv({ allErrors: true, strict: false, useDefaults: true, ...options });
  (addFormats as unknown as (a: Ajv) => void)(instance);
  return instance;
}

const byPart = {
  body: ajv({ coerceTypes: false, removeAdditional: false }),
  querystring: ajv({ coerceTypes: 'array', removeAdditional: false }),
  params: ajv({ coerceTypes: true }),
  headers: ajv({ coerceTypes: true }),
};

export function validatorCompiler({
  schema,
  httpPart,
}: {
  schema: FastifySchema;
  httpPart?: string;
}) {
  const compiler = byPart[(httpPart ?? 'body') as keyof typeof byPart] ?? byPart.body;
  return compiler.compile(schema as object);
}

/** A standalone validator with the body rules, for records checked one by one (events, import rows). */
export function compileBodyValidator(schema: object) {
  return byPart.body.compile(schema);
}
