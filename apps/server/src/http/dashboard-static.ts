import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { App } from './app-types.ts';

/**
 * The server package's folder: the first one above this module with a package.json. This module
 * runs from src/http/ in tests and from a bundled chunk in dist/ in production, so a fixed
 * relative path would be right in only one of them.
 */
function serverPackageDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** Where the dashboard's build writes it (scripts/build.mjs, run by scripts/bootstrap.sh). */
export const DASHBOARD_DIST = join(serverPackageDir(), '..', 'dashboard', 'dist');

/** Paths that belong to the API and its documents: an unknown one stays a 404 problem. */
const API_PREFIXES = ['/v1/', '/v1', '/docs', '/problems'];

function isApiPath(url: string): boolean {
  const path = url.split('?')[0] as string;
  return API_PREFIXES.some((p) => path === p || path.startsWith(p.endsWith('/') ? p : `${p}/`));
}

/**
 * Serves the built dashboard at `/`: its files, and index.html for every other GET outside the
 * API (the dashboard routes in the browser, so a deep link such as /experiments/x/results must
 * load the app). Nothing is registered when the build is missing, so the API never depends on it.
 */
export async function registerDashboard(app: App, dist = DASHBOARD_DIST): Promise<void> {
  if (!existsSync(join(dist, 'index.html'))) return;
  await app.register(fastifyStatic, {
    root: dist,
    prefix: '/',
    wildcard: false,
    index: false,
    // Vite names assets by content hash, so they never change; index.html must be re-read.
    setHeaders: (res, path) => {
      res.header(
        'cache-control',
        path.includes(`${join(dist, 'assets')}`)
          ? 'public, max-age=31536000, immutable'
          : 'no-cache',
      );
    },
  });
  app.get('/*', { schema: { hide: true } }, (request, reply) => {
    if (isApiPath(request.url)) return reply.callNotFound();
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  });
  app.get('/', { schema: { hide: true } }, (_request, reply) =>
    reply.header('cache-control', 'no-cache').sendFile('index.html'),
  );
}
