import { STORABLE_TEXT_PATTERN } from '@arbiter/contract';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchema } from 'fastify';
import { dateTimeFormat } from './date-time-format.ts';
import { FREE_FORM_JSON_KEYWORD, freeFormJsonProblem } from './free-form-json.ts';
import {
  DAY_FORMAT,
  DAY_MESSAGE,
  isRealDay,
  isRealRunLabel,
  RUN_LABEL_FORMAT,
  RUN_LABEL_MESSAGE,
} from './run-label.ts';
import { TEXT_RULE_MESSAGE } from './text.ts';

/**
 * Bodies are validated strictly (no type coercion, unknown fields rejected, every error
 * reported); query strings and path params are coerced from text, as they must be.
 */
function ajv(options: Options): Ajv {
  const instance = new Ajv({ allErrors: true, strict: false, useDefaults: true, ...options });
  (addFormats as unknown as (a: Ajv) => void)(instance);
  instance.addFormat('date-time', dateTimeFormat);
  instance.addFormat(RUN_LABEL_FORMAT, { type: 'string', validate: isRealRunLabel });
  instance.addFormat(DAY_FORMAT, { type: 'string', validate: isRealDay });
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

/**
 * Compiles on the first call, not when the route or module is set up: compiling every route's
 * validators before the listener opened was a large part of a restart
 * (docs/decisions/operations.md#build-start-and-the-demo). The text rule's and the run label's failures
 * say what is wrong instead of quoting a pattern.
 */
function checkedOnFirstUse(schema: object, compile: () => ValidateFunction): ValidateFunction {
  let validate: ValidateFunction | undefined;
  const checked = ((data: unknown) => {
    validate ??= compile();
    const ok = validate(data);
    checked.errors = validate.errors;
    if (!ok) {
      for (const e of validate.errors ?? []) {
        if (e.keyword === 'pattern' && e.params.pattern === STORABLE_TEXT_PATTERN)
          e.message = TEXT_RULE_MESSAGE;
        if (e.keyword === 'format' && e.params.format === RUN_LABEL_FORMAT)
          e.message = RUN_LABEL_MESSAGE;
        if (e.keyword === 'format' && e.params.format === DAY_FORMAT) e.message = DAY_MESSAGE;
      }
    }
    return ok;
  }) as ValidateFunction;
  checked.schema = schema;
  return checked;
}

const optionsByPart: Record<string, Options> = {
  body: { coerceTypes: false, removeAdditional: false },
  querystring: { coerceTypes: 'array', removeAdditional: false },
  params: { coerceTypes: true },
  headers: { coerceTypes: true },
};
/** One Ajv per part, made when that part's first validator compiles. */
const ajvByPart = new Map<string, Ajv>();

function ajvFor(httpPart: string | undefined): Ajv {
  const part = httpPart !== undefined && Object.hasOwn(optionsByPart, httpPart) ? httpPart : 'body';
  let instance = ajvByPart.get(part);
  if (instance === undefined) {
    instance = ajv(optionsByPart[part] as Options);
    ajvByPart.set(part, instance);
  }
  return instance;
}

export function validatorCompiler({
  schema,
  httpPart,
}: {
  schema: FastifySchema;
  httpPart?: string;
}) {
  return checkedOnFirstUse(schema as object, () => ajvFor(httpPart).compile(schema as object));
}

/** A standalone validator with the body rules, for records checked one by one (events, import rows). */
export function compileBodyValidator(schema: object) {
  return checkedOnFirstUse(schema, () => ajvFor('body').compile(schema));
}
