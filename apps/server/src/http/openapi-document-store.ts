import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RouteOptions } from 'fastify';

const PREFIX = 'openapi-';

/**
 * The identity of the production build this module runs from (dist/build-id, written by the
 * build beside its modules), or null when it runs from source (tests, tsx), where nothing is
 * stored.
 */
export function productionBuildId(): string | null {
  try {
    return readFileSync(new URL('./build-id', import.meta.url), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/**
 * A key for the document the app describes: the build (the code that turns routes into the
 * document) and everything of the routes and shared schemas that @fastify/swagger reads. A
 * setting that changes a route's schema (a limit stated as `maxItems`) or the set of routes
 * (development sign-in) changes the key. Null when the schemas cannot be written as JSON.
 */
export function documentKey(
  buildId: string,
  routes: readonly RouteOptions[],
  sharedSchemas: unknown,
): string | null {
  const described = routes.map((route) => [
    route.method,
    route.url,
    route.schema,
    (route as { links?: unknown }).links,
    route.config?.swagger,
    typeof route.config?.swaggerTransform,
  ]);
  try {
    return createHash('sha256')
      .update(buildId)
      .update(JSON.stringify([described, sharedSchemas]))
      .digest('hex')
      .slice(0, 32);
  } catch {
    return null;
  }
}

/** The document stored under this key by an earlier start, if any. */
export function readStoredDocument(dir: string, key: string): string | null {
  try {
    return readFileSync(join(dir, `${PREFIX}${key}.json`), 'utf8');
  } catch {
    return null;
  }
}

/**
 * Stores the document under its key, replacing the documents of other builds and settings, so
 * the directory holds one. Written whole and renamed into place: a reader never sees half a
 * document. Best effort: a directory the server cannot write to (a read-only root) only means
 * the next start builds the document again.
 */
export function storeDocument(dir: string, key: string, body: string): void {
  const name = `${PREFIX}${key}.json`;
  try {
    mkdirSync(dir, { recursive: true });
    const partial = join(dir, `.${name}.${process.pid}`);
    writeFileSync(partial, body);
    renameSync(partial, join(dir, name));
    for (const other of readdirSync(dir)) {
      if (other.startsWith(PREFIX) && other !== name) rmSync(join(dir, other), { force: true });
    }
  } catch {
    // Not stored; the document is still served.
  }
}
