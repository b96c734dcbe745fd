import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE, openApiDocumentText } from '../scripts/openapi-document.ts';

describe('packages/contract/openapi.json', () => {
  it('is what the server serves (run `npm run write-openapi -w @arbiter/server` after a change)', async () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(await openApiDocumentText());
  });
});
