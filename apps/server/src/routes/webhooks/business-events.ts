import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import { and, eq } from 'drizzle-orm';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { experiments } from '../../db/schema.ts';
import { activeWebhookSecret } from '../../domain/webhook-secrets.ts';
import type { App } from '../../http/app-types.ts';
import { SIGNATURE_HEADER, verifyBusinessSignature } from '../../http/business-signature.ts';
import { ProblemError } from '../../http/problems.ts';
import { problemResponses } from '../../http/responses.ts';
import { acceptEvents } from '../../ingest/accept.ts';
import { BusinessValue } from '../../ingest/event-schema.ts';
import { refuseIfNothingAccepted } from '../../ingest/refusal.ts';
import { FreeFormObject } from '../../schemas/free-form-json.ts';
import { Text } from '../../schemas/text.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const BusinessEventBody = Type.Object(
  {
    event_id: Type.Optional(
      Text({
        minLength: 1,
        maxLength: 128,
        description: 'Defaults to a hash of the body, so a redelivery is counted once',
      }),
    ),
    experiment_id: Type.String({
      pattern: UUID.source,
      description: 'The experiment id (its org owns the signing secret)',
    }),
    user_id: Text({ minLength: 1, maxLength: 256 }),
    variant: Type.Optional(Text({ minLength: 1, maxLength: 64 })),
    business_metric: Text({
      minLength: 1,
      maxLength: 128,
      description: 'conversion, revenue, retention or any metric name',
    }),
    value: BusinessValue,
    timestamp: Type.Optional(Type.String({ format: 'date-time' })),
    metadata: Type.Optional(FreeFormObject()),
  },
  { additionalProperties: false },
);

declare module 'fastify' {
  interface FastifyRequest {
    rawBody: string | null;
    signedOrgId: string | null;
  }
}

function invalid(reason: string): ProblemError {
  return new ProblemError('invalid-signature', `Business event refused: ${reason}`);
}

export async function register(app: App, ctx: Context): Promise<void> {
  app.decorateRequest('rawBody', null);
  app.decorateRequest('signedOrgId', null);
  // The signature covers the exact bytes sent, so the body is kept as text before parsing.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = body as string;
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new ProblemError('malformed-json', 'The body could not be parsed as JSON'), undefined);
    }
  });
  await app.register(rateLimit, {
    hook: 'preHandler',
    timeWindow: 60_000,
    keyGenerator: (request) => `business:${request.signedOrgId}`,
    max: ctx.config.rateLimitSecretPerMinute,
    errorResponseBuilder: (_request, context) =>
      new ProblemError(
        'rate-limited',
        `More than ${context.max} business events per minute for this org; retry in ${context.after}`,
      ),
  });
  app.post(
    '/v1/business-events',
    {
      schema: {
        tags: ['webhooks'],
        summary:
          'One downstream outcome, HMAC-signed with the org webhook secret; counts like /v1/events',
        description:
          'Header `Arbiter-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; 5-minute tolerance.',
        security: [{ signature: [] }],
        body: BusinessEventBody,
        response: {
          202: Type.Object({
            accepted: Type.Integer(),
            config_version: Type.Integer(),
            event_id: Type.String(),
            before_analysis_window: Type.Boolean({
              description:
                "The outcome is dated before its experiment's analysis window (the UTC day it was created): stored and metered, read by no results window",
            }),
          }),
          ...problemResponses(400, 401, 429),
        },
      },
      // Verified before the rate limit (preHandler) so the limit applies per signing org.
      preValidation: async (request) => {
        const body = request.body as { experiment_id?: unknown };
        const experimentId = typeof body?.experiment_id === 'string' ? body.experiment_id : '';
        const [owner] = UUID.test(experimentId)
          ? await ctx.db
              .select({ orgId: experiments.orgId })
              .from(experiments)
              .where(and(eq(experiments.id, experimentId)))
          : [];
        const secret = owner ? await activeWebhookSecret(ctx.db, ctx.secretBox, owner.orgId) : null;
        // An unknown experiment and a missing secret look alike: nothing to verify against.
        if (!owner || secret === null)
          throw invalid('no webhook secret is configured for this experiment’s org');
        const header = request.headers[SIGNATURE_HEADER];
        const check = verifyBusinessSignature(
          typeof header === 'string' ? header : undefined,
          secret,
          request.rawBody ?? '',
          ctx.clock.now(),
        );
        if (!check.ok) throw invalid(check.reason);
        request.signedOrgId = owner.orgId;
      },
    },
    async (request, reply) => {
      const b = request.body;
      const event = {
        event_id:
          b.event_id ??
          `bev-${createHash('sha256')
            .update(request.rawBody ?? '')
            .digest('hex')
            .slice(0, 40)}`,
        type: 'business_event',
        experiment_id: b.experiment_id,
        user_id: b.user_id,
        timestamp: b.timestamp ?? ctx.clock.now().toISOString(),
        business_metric: b.business_metric,
        value: b.value,
        ...(b.variant === undefined ? {} : { variant: b.variant }),
        ...(b.metadata === undefined ? {} : { metadata: b.metadata }),
      };
      // A downstream system may deliver an outcome late (retries over days): history rules.
      const outcome = await acceptEvents(ctx, request.signedOrgId as string, [event], {
        timestamps: 'history',
      });
      refuseIfNothingAccepted(outcome, () => '#');
      reply.status(202);
      return {
        accepted: outcome.accepted,
        config_version: outcome.configVersion,
        event_id: event.event_id,
        before_analysis_window: outcome.beforeWindow > 0,
      };
    },
  );
}
