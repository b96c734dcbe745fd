import { Type } from 'typebox';
import type { App } from '../../http/app-types.ts';

/** The OpenAPI document itself; probes are `/healthz` and `/readyz`, outside `/v1`. */
export function register(app: App): void {
  app.get(
    '/v1/openapi.json',
    {
      schema: {
        tags: ['meta'],
        summary: 'This OpenAPI 3.1 document',
        security: [],
        response: {
          200: {
            description: 'The OpenAPI document',
            content: {
              'application/json': { schema: Type.Object({}, { additionalProperties: true }) },
            },
          },
        },
      },
    },
    // Already serialized (the route's serializer on the first answer): a string goes out as is.
    async (_request, reply) =>
      reply
        .type('application/json; charset=utf-8')
        .send(app.openApiBody(reply) as unknown as Record<string, unknown>),
  );
}
