import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyReply, RouteOptions } from 'fastify';
import { openApiWebhooks } from '../domain/outbound-webhooks/event-schemas.ts';
import { WEBHOOK_EVENT_TYPES } from '../domain/outbound-webhooks/event-types.ts';
import type { App } from './app-types.ts';
import {
  documentKey,
  productionBuildId,
  readStoredDocument,
  storeDocument,
} from './openapi-document-store.ts';
import { restateTextRule } from './openapi-text-rule.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The OpenAPI document as GET /v1/openapi.json answers it: the serialized JSON. */
    openApiBody(reply: FastifyReply): string;
  }
}

export const API_VERSION = '1.0.0';

/** The document's fixed part: the API's identity and how a request is authenticated. */
const DOCUMENT_HEAD: FastifyDynamicSwaggerOptions['openapi'] = {
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
      bearerKey: {
        type: 'http',
        scheme: 'bearer',
        description:
          'An API key (svc_pk_ or svc_sk_) as `Authorization: Bearer <key>`: OFREP routes only, where X-API-Key is absent',
      },
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
};

/**
 * The OpenAPI 3.1 document of every route registered after this, and its UI at /docs. A
 * production build keeps the document's answer in `storeDir` between starts, under a key of
 * the build and the routes' schemas (openapi-document-store.ts): building it walks every route
 * and was a tenth of a restart's CPU, spent on the readiness probe's first answer.
 */
export async function registerOpenApi(app: App, storeDir: string | null): Promise<void> {
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
      // What Arbiter sends: each outbound webhook event's body (OpenAPI 3.1 `webhooks`).
      doc.webhooks = structuredClone(openApiWebhooks(WEBHOOK_EVENT_TYPES));
      return doc;
    },
    openapi: DOCUMENT_HEAD,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  decorateOpenApiBody(app, storeDir);
}

/** `openApiBody`: built once, or read from an earlier start's store under the same key. */
function decorateOpenApiBody(app: App, storeDir: string | null): void {
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    routes.push(route);
  });
  const buildId = storeDir === null ? null : productionBuildId();
  let body: string | undefined;
  app.decorate('openApiBody', (reply: FastifyReply) => {
    if (body !== undefined) return body;
    const key = buildId === null ? null : documentKey(buildId, routes, app.getSchemas());
    const stored = key === null || storeDir === null ? null : readStoredDocument(storeDir, key);
    if (stored !== null) {
      body = stored;
      return body;
    }
    // The route's own serializer: the same bytes as answering with the document object.
    const document = { ...app.swagger() };
    body = String(reply.serializeInput(document, '200', 'application/json'));
    if (key !== null && storeDir !== null) storeDocument(storeDir, key, body);
    return body;
  });
}
