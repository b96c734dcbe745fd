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

/**
 * The dashboard's own pages (the top-level paths of apps/dashboard/src/App.tsx's router): each
 * answers index.html so a deep link loads the app. Named one by one rather than caught by `/*`,
 * so the API's routing (404, 405 with Allow, 414 for an over-long segment) never meets a
 * catch-all. A new top-level page adds its path here.
 */
export const DASHBOARD_PAGES = [
  '/',
  '/experiments',
  '/experiments/*',
  '/layers',
  '/layers/*',
  '/holdouts',
  '/holdouts/*',
  '/datasets',
  '/datasets/*',
  '/prompts',
  '/prompts/*',
  '/keys',
  '/usage',
  '/billing',
  '/audit',
  '/feedback',
  '/webhooks',
  '/auth/callback',
  '/admin',
  '/admin/*',
] as const;

/**
 * Serves the built dashboard at `/`: its files, and index.html for each of its pages (the
 * dashboard routes in the browser, so a deep link such as /experiments/x/results must load the
 * app). Nothing is registered when the build is missing, so the API never depends on it.
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
  for (const page of DASHBOARD_PAGES)
    app.get(page, { schema: { hide: true } }, (_request, reply) =>
      reply.header('cache-control', 'no-cache').sendFile('index.html'),
    );
}
