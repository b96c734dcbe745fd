import { EVENT_TEXT_LIMITS } from '@arbiter/contract';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import type { App } from '../../http/app-types.ts';
import { businessSignatureHook } from '../../http/business-signature-auth.ts';
import { problemResponses } from '../../http/responses.ts';
import type { AcceptDeps } from '../../ingest/accept.ts';
import { acceptBusinessEvent } from '../../ingest/business-event.ts';
import { BusinessValue } from '../../ingest/event-schema.ts';
import { FreeFormObject } from '../../schemas/free-form-json.ts';
import { Text } from '../../schemas/text.ts';
import { UUID } from '../../schemas/uuid.ts';

const BusinessEventBody = Type.Object(
  {
    event_id: Type.Optional(
      Text({
        ...EVENT_TEXT_LIMITS.event_id,
        description: 'Defaults to a hash of the body, so a redelivery is counted once',
      }),
    ),
    experiment_id: Type.String({
      pattern: UUID.source,
      description: 'The experiment id (its org owns the signing secret)',
    }),
    user_id: Text(EVENT_TEXT_LIMITS.user_id),
    variant: Type.Optional(Text(EVENT_TEXT_LIMITS.variant)),
    business_metric: Text({
      ...EVENT_TEXT_LIMITS.business_metric,
      description: 'conversion, revenue, retention or any metric name',
    }),
    value: BusinessValue,
    timestamp: Type.Optional(Type.String({ format: 'date-time' })),
    metadata: Type.Optional(FreeFormObject()),
  },
  { additionalProperties: false },
);

export function register(app: App, ctx: AcceptDeps & Pick<Context, 'db' | 'secretBox'>): void {
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
      preValidation: businessSignatureHook(ctx),
    },
    async (request, reply) => {
      const accepted = await acceptBusinessEvent(
        ctx,
        request.signedOrgId as string,
        request.body,
        request.rawBody ?? '',
      );
      reply.status(202);
      return accepted;
    },
  );
}
