import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RouteOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  documentKey,
  readStoredDocument,
  storeDocument,
} from '../../src/http/openapi-document-store.ts';
import { devEnv, startServer } from '../support/process.ts';

function route(maxItems: number): RouteOptions {
  return {
    method: 'POST',
    url: '/v1/datasets/:id/items',
    schema: { body: { type: 'array', maxItems } },
    handler: () => {},
  };
}

describe('the key of a stored OpenAPI document', () => {
  it('is the same for the same build and routes', () => {
    expect(documentKey('build-a', [route(10)], { Problem: {} })).toBe(
      documentKey('build-a', [route(10)], { Problem: {} }),
    );
  });

  it('changes with the build, a route schema, a route and the shared schemas', () => {
    const key = documentKey('build-a', [route(10)], {});
    expect(documentKey('build-b', [route(10)], {})).not.toBe(key);
    expect(documentKey('build-a', [route(11)], {})).not.toBe(key);
    expect(documentKey('build-a', [route(10), { ...route(10), url: '/v1/x' }], {})).not.toBe(key);
    expect(documentKey('build-a', [route(10)], { Problem: {} })).not.toBe(key);
  });

  it('is null for schemas JSON cannot write, so nothing is stored for them', () => {
    const odd = { ...route(10), schema: { body: { default: 10n } } };
    expect(documentKey('build-a', [odd], {})).toBeNull();
  });
});

describe('the stored OpenAPI document', () => {
  it('is read back under its key only, and one document is kept', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'arbiter-openapi-store-')), 'cache');
    expect(readStoredDocument(dir, 'k1')).toBeNull();
    storeDocument(dir, 'k1', '{"a":1}');
    expect(readStoredDocument(dir, 'k1')).toBe('{"a":1}');
    expect(readStoredDocument(dir, 'k2')).toBeNull();
    storeDocument(dir, 'k2', '{"b":2}');
    expect(readStoredDocument(dir, 'k2')).toBe('{"b":2}');
    expect(readStoredDocument(dir, 'k1')).toBeNull();
    expect(readdirSync(dir)).toEqual(['openapi-k2.json']);
  });

  it('is not stored, without an error, where the directory cannot be made', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'arbiter-openapi-store-')), 'a-file');
    writeFileSync(file, '');
    expect(() => storeDocument(join(file, 'cache'), 'k1', '{}')).not.toThrow();
    expect(readStoredDocument(join(file, 'cache'), 'k1')).toBeNull();
  });
});

async function servedDocument(env: Record<string, string>): Promise<string> {
  const server = await startServer(env);
  try {
    const res = await fetch(`${server.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    return await res.text();
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

describe('the production build', () => {
  it('answers a restart with the document it stored, and other routes with one built again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-openapi-restart-'));
    const env = devEnv(dataDir);
    const first = await servedDocument(env);
    // The same folder keeps the build's compiled code (bin/code-cache.js).
    const documents = () =>
      readdirSync(join(dataDir, 'cache')).filter((n) => n.startsWith('openapi-'));
    const stored = documents();
    expect(stored).toHaveLength(1);
    expect(readFileSync(join(dataDir, 'cache', stored[0] as string), 'utf8')).toBe(first);

    expect(await servedDocument(env)).toBe(first);
    // What a restart answers is what the store holds, not a document built again.
    const name = join(dataDir, 'cache', stored[0] as string);
    writeFileSync(name, first.replace('"title":"Arbiter API"', '"title":"Stored"'));
    expect(await servedDocument(env)).toContain('"title":"Stored"');

    // Metrics add a route (one the document hides): another key, so the document is built.
    expect(await servedDocument({ ...env, ARBITER_METRICS: 'true' })).toBe(first);
    const kept = documents();
    expect(kept).toHaveLength(1);
    expect(kept[0]).not.toBe(stored[0]);
  }, 120_000);
});
