import type { App } from './app-types.ts';

/**
 * In a route's own scope: bodies of `contentTypes` reach the handler whole, as text or as
 * bytes, for the route to parse itself (JSON among them: Fastify's own JSON parser is removed).
 */
export function rawBodies(
  app: App,
  contentTypes: string[],
  parseAs: 'string' | 'buffer',
  bodyLimit: number,
): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(contentTypes, { parseAs, bodyLimit }, (_request, body, done) =>
    done(null, body),
  );
}
