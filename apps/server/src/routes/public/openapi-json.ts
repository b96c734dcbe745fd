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
    async () => app.swagger(),
  );
}
