import { STORABLE_TEXT_PATTERN } from '@arbiter/contract';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchema } from 'fastify';
import { FREE_FORM_JSON_KEYWORD, freeFormJsonProblem } from './free-form-json.ts';
import { isRealRunLabel, RUN_LABEL_FORMAT, RUN_LABEL_MESSAGE } from './run-label.ts';
import { TEXT_RULE_MESSAGE } from './text.ts';

/**
 * Bodies are validated strictly (no type coercion, unknown fields rejected, every error
 * reported); query strings and path params are coerced from text, as they must be.
 */
function ajv(options: Options): Ajv {
  const instance = new Ajv({ allErrors: true, strict: false, useDefaults: true, ...options });
  (addFormats as unknown as (a: Ajv) => void)(instance);
  instance.addFormat(RUN_LABEL_FORMAT, { type: 'string', validate: isRealRunLabel });
  const checkFreeForm = (
    enabled: boolean,
    data: unknown,
    _parent: unknown,
    where?: { instancePath: string },
  ): boolean => {
    if (!enabled) return true;
    const problem = freeFormJsonProblem(data);
    if (problem === null) return true;
    checkFreeForm.errors = [
      {
        keyword: FREE_FORM_JSON_KEYWORD,
        instancePath: `${where?.instancePath ?? ''}${problem.pointer}`,
        message: problem.detail,
        params: {},
      },
    ];
    return false;
  };
  checkFreeForm.errors = [] as Array<Record<string, unknown>>;
  instance.addKeyword({
    keyword: FREE_FORM_JSON_KEYWORD,
    schemaType: 'boolean',
    validate: checkFreeForm,
    errors: true,
  });
  return instance;
}

/** The text rule's and the run label's failures say what is wrong instead of quoting a pattern. */
function withTextRuleMessage(validate: ValidateFunction): ValidateFunction {
  const checked = ((data: unknown) => {
    const ok = validate(data);
    checked.errors = validate.errors;
    if (!ok) {
      for (const e of validate.errors ?? []) {
        if (e.keyword === 'pattern' && e.params.pattern === STORABLE_TEXT_PATTERN)
          e.message = TEXT_RULE_MESSAGE;
        if (e.keyword === 'format' && e.params.format === RUN_LABEL_FORMAT)
          e.message = RUN_LABEL_MESSAGE;
      }
    }
    return ok;
  }) as ValidateFunction;
  checked.schema = validate.schema;
  return checked;
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
  return withTextRuleMessage(compiler.compile(schema as object));
}

/** A standalone validator with the body rules, for records checked one by one (events, import rows). */
export function compileBodyValidator(schema: object) {
  return withTextRuleMessage(byPart.body.compile(schema));
}
