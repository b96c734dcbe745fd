import { ROUTE_TOOLS } from './tool-catalogue.ts';

/** A JSON Schema, as the OpenAPI document and MCP's tool list carry it. */
export type JsonSchema = Record<string, unknown>;

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  description?: string;
  schema: JsonSchema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
}

/** The part of an OpenAPI document the tools read. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

function operationOf(doc: OpenApiDocument, method: string, path: string): Operation {
  const operation = doc.paths[path]?.[method.toLowerCase()];
  if (operation === undefined) throw new Error(`the contract has no ${method} ${path}`);
  return operation;
}

/** The input schemas are inlined: a `$ref` would point into a document the agent never sees. */
function selfContained(schema: JsonSchema, where: string): JsonSchema {
  if (JSON.stringify(schema).includes('"$ref"')) throw new Error(`${where} has a $ref`);
  return schema;
}

/**
 * A tool's input schema from its route's operation: each path and query parameter a property
 * (its description kept), and the JSON body, whole, under `body`, so a union body (stop's
 * conclusions) stays one schema and a validation pointer reads as the API's.
 */
export function routeInputSchema(doc: OpenApiDocument, method: string, path: string): JsonSchema {
  const operation = operationOf(doc, method, path);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const parameters = operation.parameters ?? [];
  // Path parameters first: the experiment an agent names, then how to read it.
  const ordered = [
    ...parameters.filter((p) => p.in === 'path'),
    ...parameters.filter((p) => p.in === 'query'),
  ];
  for (const p of ordered) {
    const schema = selfContained(p.schema, `${method} ${path} ${p.name}`);
    properties[p.name] =
      p.description === undefined ? schema : { ...schema, description: p.description };
    if (p.required === true) required.push(p.name);
  }
  const body = operation.requestBody?.content['application/json']?.schema;
  if (body !== undefined) {
    properties.body = selfContained(body, `${method} ${path} body`);
    if (operation.requestBody?.required === true) required.push('body');
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** Every tool's input schema, by tool name, from the contract's OpenAPI document. */
export function toolInputSchemas(doc: OpenApiDocument): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  for (const tool of ROUTE_TOOLS)
    schemas[tool.name] = routeInputSchema(doc, tool.method, tool.path);
  return schemas;
}
