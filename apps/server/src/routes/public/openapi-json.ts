import { Type } from 'typebox';
import type { App } from '../../http/app-types.ts';

/** The OpenAPI document itself; it doubles as the readiness probe. */
export function register(app: App): void {
  app.get(
    '/v1/openapi.json',
    {
      schema: {
        tags: ['meta'],
        summary: 'This OpenAPI 3.1 document (the readiness probe)',
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
    async () => app.swagger(),
  );
}
