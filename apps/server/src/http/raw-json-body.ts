import type { App } from './app-types.ts';
import { ProblemError } from './problems.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody: string | null;
  }
}

/**
 * JSON bodies kept as sent beside the parsed value, for the routes of this scope whose
 * signature covers the exact bytes (business events, provider webhooks).
 */
export function keepRawJsonBody(app: App): void {
  app.decorateRequest('rawBody', null);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = body as string;
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new ProblemError('malformed-json', 'The body could not be parsed as JSON'), undefined);
    }
  });
}
