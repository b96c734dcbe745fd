import { randomUUID } from 'node:crypto';
import { FREE_FORM_JSON_MAX_DEPTH } from '@arbiter/contract';
import { Type } from 'typebox';
import { FreeFormObject, freeFormJsonProblem } from '../../schemas/free-form-json.ts';
import { isStorableText, TEXT_RULE_MESSAGE, Text } from '../../schemas/text.ts';

export const ITEM_ID_MAX_LENGTH = 200;
export const GROUP_MAX_LENGTH = 200;

const JSON_VALUE = 'Any JSON value but null';

/** One item as a JSON or NDJSON upload sends it (CSV: see the route's description). */
export const DatasetItemInputSchema = Type.Object(
  {
    id: Type.Optional(
      Text({
        minLength: 1,
        maxLength: ITEM_ID_MAX_LENGTH,
        description:
          "The caller's stable key of the item; generated (a UUID) when absent. An upload whose id the dataset already holds replaces that item",
      }),
    ),
    input: Type.Union(
      [
        Text({ minLength: 1, description: 'Text, not empty or blank' }),
        Type.Record(Type.String(), Type.Unknown(), {
          minProperties: 1,
          description: 'A JSON object with at least one member',
        }),
      ],
      { description: 'What the task receives: a string or a JSON object; required, not empty' },
    ),
    expected_output: Type.Optional(
      Type.Unknown({ description: `What a scorer compares the output with. ${JSON_VALUE}` }),
    ),
    variables: Type.Optional(FreeFormObject("Merged over the variant's variables")),
    metadata: Type.Optional(FreeFormObject('Kept with the item, for reading')),
    group: Type.Optional(
      Type.Union([Text({ minLength: 1, maxLength: GROUP_MAX_LENGTH }), Type.Null()], {
        description: 'A label for breakdowns',
      }),
    ),
  },
  { additionalProperties: false },
);

/** An item ready to store: every field present, absent ones as null or {}. */
export interface DatasetItem {
  id: string;
  input: string | Record<string, unknown>;
  expected_output: unknown;
  variables: Record<string, unknown>;
  metadata: Record<string, unknown>;
  group: string | null;
}

const FIELDS = new Set(['id', 'input', 'expected_output', 'variables', 'metadata', 'group']);
const utf8 = new TextEncoder();

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Why a JSON value cannot be stored (a NUL or an unpaired surrogate in a key or a string, or
 * nesting past the free-form depth), with the path inside it, or null. Iterative: no nesting
 * can exhaust the stack.
 */
function storableProblem(value: unknown, field: string): string | null {
  const stack: Array<{ node: unknown; depth: number; path: string }> = [
    { node: value, depth: 1, path: field },
  ];
  while (stack.length > 0) {
    const { node, depth, path } = stack.pop() as (typeof stack)[number];
    if (typeof node === 'string') {
      if (!isStorableText(node)) return `${path}: ${TEXT_RULE_MESSAGE}`;
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    if (depth > FREE_FORM_JSON_MAX_DEPTH)
      return `${path}: nested deeper than ${FREE_FORM_JSON_MAX_DEPTH} levels`;
    for (const [key, inner] of Object.entries(node)) {
      if (!isStorableText(key)) return `${path}: a key ${TEXT_RULE_MESSAGE}`;
      stack.push({ node: inner, depth: depth + 1, path: `${path}/${key}` });
    }
  }
  return null;
}

function inputProblem(input: unknown): string | null {
  if (input === undefined || input === null) return 'input: is required';
  if (typeof input === 'string') return input.trim() === '' ? 'input: is empty' : null;
  if (!isObject(input)) return 'input: must be a string or a JSON object';
  return Object.keys(input).length === 0 ? 'input: is an empty object' : null;
}

function textFieldProblem(name: string, value: unknown, maxLength: number): string | null {
  if (typeof value !== 'string') return `${name}: must be a string`;
  if (value === '') return `${name}: is empty`;
  if (value.length > maxLength) return `${name}: longer than ${maxLength} characters`;
  return null;
}

function objectFieldProblem(name: string, value: unknown): string | null {
  if (!isObject(value)) return `${name}: must be a JSON object`;
  const problem = freeFormJsonProblem(value);
  return problem === null ? null : `${name}${problem.pointer}: ${problem.detail}`;
}

/** Every reason the fields cannot make an item, field by field. */
function fieldProblems(fields: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const unknown = Object.keys(fields).filter((key) => !FIELDS.has(key));
  if (unknown.length > 0)
    problems.push(`${unknown.map((k) => JSON.stringify(k)).join(', ')}: not a known field`);
  const check = (problem: string | null) => {
    if (problem !== null) problems.push(problem);
  };
  if (fields.id !== undefined) check(textFieldProblem('id', fields.id, ITEM_ID_MAX_LENGTH));
  check(inputProblem(fields.input));
  if (fields.group !== undefined && fields.group !== null)
    check(textFieldProblem('group', fields.group, GROUP_MAX_LENGTH));
  if (fields.variables !== undefined) check(objectFieldProblem('variables', fields.variables));
  if (fields.metadata !== undefined) check(objectFieldProblem('metadata', fields.metadata));
  if (problems.length > 0) return problems;
  for (const name of ['id', 'input', 'expected_output', 'group'])
    check(storableProblem(fields[name], name));
  return problems;
}

/**
 * An item from the fields of one uploaded row, or every reason it is not one (joined by "; ").
 * `maxBytes` bounds the item's compact JSON (ARBITER_MAX_DATASET_ITEM_BYTES).
 */
export function checkItem(
  fields: Record<string, unknown>,
  maxBytes: number,
): { item: DatasetItem } | { problem: string } {
  const problems = fieldProblems(fields);
  if (problems.length > 0) return { problem: problems.join('; ') };
  const item: DatasetItem = {
    id: (fields.id as string | undefined) ?? randomUUID(),
    input: fields.input as DatasetItem['input'],
    expected_output: fields.expected_output ?? null,
    variables: (fields.variables as Record<string, unknown> | undefined) ?? {},
    metadata: (fields.metadata as Record<string, unknown> | undefined) ?? {},
    group: (fields.group as string | null | undefined) ?? null,
  };
  const bytes = utf8.encode(JSON.stringify(item)).length;
  if (bytes > maxBytes) {
    return {
      problem: `the item is ${bytes} bytes as JSON, more than the ${maxBytes} an item may hold (ARBITER_MAX_DATASET_ITEM_BYTES)`,
    };
  }
  return { item };
}
