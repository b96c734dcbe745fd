import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROUTE_TOOLS } from '../../src/mcp/tool-catalogue.ts';
import TOOL_INPUT_SCHEMAS from '../../src/mcp/tool-schemas.generated.json' with { type: 'json' };
import { type OpenApiDocument, toolInputSchemas } from '../../src/mcp/tool-schemas.ts';

// The document the server serves: test/openapi-file.test.ts holds the file to it.
const contract = (): OpenApiDocument =>
  JSON.parse(
    readFileSync(new URL('../../../../packages/contract/openapi.json', import.meta.url), 'utf8'),
  );

describe("the MCP tools' input schemas", () => {
  it('are those the contract gives their routes (run `npm run write-openapi -w @arbiter/server` after a change)', () => {
    expect(TOOL_INPUT_SCHEMAS).toEqual(toolInputSchemas(contract()));
  });

  it('fail the check when a route gains a parameter and its tool does not', () => {
    const changed = contract();
    const get = changed.paths['/v1/experiments/{id}/results']?.get;
    get?.parameters?.push({ in: 'query', name: 'since', schema: { type: 'string' } });
    expect(TOOL_INPUT_SCHEMAS).not.toEqual(toolInputSchemas(changed));
  });

  it("fail the check when a route's body changes and its tool does not", () => {
    const changed = contract();
    const body = changed.paths['/v1/experiments']?.post?.requestBody?.content['application/json'];
    (body?.schema.properties as Record<string, unknown>).owner = { type: 'string' };
    expect(TOOL_INPUT_SCHEMAS).not.toEqual(toolInputSchemas(changed));
  });

  it('refuse a tool whose route the contract no longer has', () => {
    const changed = contract();
    delete changed.paths['/v1/experiments/{id}/sample-size'];
    expect(() => toolInputSchemas(changed)).toThrow(
      'the contract has no GET /v1/experiments/{id}/sample-size',
    );
  });

  it('put path and query parameters by name and the body under `body`', () => {
    const stop = ROUTE_TOOLS.find((t) => t.name === 'stop_experiment');
    const schemas = TOOL_INPUT_SCHEMAS as Record<
      string,
      { properties: object; required: string[] }
    >;
    expect(stop?.path).toBe('/v1/experiments/{id}/stop');
    expect(Object.keys(schemas.stop_experiment?.properties ?? {})).toEqual(['id', 'body']);
    expect(schemas.stop_experiment?.required).toEqual(['id', 'body']);
    expect(Object.keys(schemas.estimate_sample_size?.properties ?? {})).toEqual([
      'id',
      'metric',
      'mde',
    ]);
    expect(schemas.estimate_sample_size?.required).toEqual(['id', 'metric']);
  });
});
