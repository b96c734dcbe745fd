import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { App } from './app-types.ts';
import { restateTextRule } from './openapi-text-rule.ts';

export const API_VERSION = '1.0.0';

/** The OpenAPI 3.1 document of every route registered after this, and its UI at /docs. */
export async function registerOpenApi(app: App): Promise<void> {
  await app.register(swagger, {
    // Shared schemas keep their own names as components (`#/components/schemas/Problem`).
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`),
    },
    transformObject: (documentObject) => {
      // A copy: the document's schemas may be the very objects the routes validate with.
      const doc = structuredClone(
        (documentObject as { openapiObject: Record<string, unknown> }).openapiObject,
      );
      restateTextRule(doc.paths);
      restateTextRule(doc.components);
      return doc;
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Arbiter API',
        version: API_VERSION,
        description:
          'Experiments for LLM-backed features: assignment, ingest, results. Errors are RFC 9457 problems.',
      },
      components: {
        securitySchemes: {
          session: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          signature: {
            type: 'apiKey',
            in: 'header',
            name: 'Arbiter-Signature',
            description:
              '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with the org webhook secret',
          },
          billingSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'Billing-Signature',
            description:
              "The billing provider's signature (`t=<unix seconds>,v1=<hex HMAC-SHA256>`), also accepted as `Stripe-Signature`, verified by the stripe library against `ARBITER_STRIPE_WEBHOOK_SECRET`",
          },
          svix: {
            type: 'apiKey',
            in: 'header',
            name: 'svix-signature',
            description:
              "The identity provider's Svix signature, with `svix-id` and `svix-timestamp`, verified against `ARBITER_CLERK_WEBHOOK_SECRET`",
          },
        },
      },
      security: [{ session: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
}
