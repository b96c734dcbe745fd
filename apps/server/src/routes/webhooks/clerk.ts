import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { applyIdentityDelivery } from '../../domain/identity/identity-sync.ts';
import type { App } from '../../http/app-types.ts';
import { identitySignatureHook } from '../../http/identity-signature-auth.ts';
import { problemResponses } from '../../http/responses.ts';

const IdentityEvent = Type.Object(
  {
    type: Type.String({
      minLength: 1,
      maxLength: 128,
      description:
        'user.*, organization.* and organizationMembership.* (created, updated, deleted) are applied; other types are acknowledged and ignored',
    }),
    data: Type.Object({}, { additionalProperties: true }),
    timestamp: Type.Optional(
      Type.Integer({ description: 'When the event happened, in Unix milliseconds' }),
    ),
  },
  { additionalProperties: true },
);

export function register(
  app: App,
  ctx: Pick<Context, 'config' | 'db' | 'clock' | 'apiKeys'>,
): void {
  app.post(
    '/v1/webhooks/clerk',
    {
      schema: {
        tags: ['webhooks'],
        summary:
          "The identity provider's user, organization and membership changes (Clerk, Svix-signed)",
        description:
          'Headers `svix-id`, `svix-timestamp`, `svix-signature`, verified with the `svix` library against `ARBITER_CLERK_WEBHOOK_SECRET`; 5-minute tolerance. A redelivered `svix-id` is acknowledged and applied once; an event older than the last one applied to a row changes nothing.',
        security: [{ svix: [] }],
        body: IdentityEvent,
        response: { 204: Type.Null(), ...problemResponses(400, 401) },
      },
      preValidation: identitySignatureHook(ctx),
    },
    async (request, reply) => {
      const sentAt = Number(request.headers['svix-timestamp']) * 1000;
      const outcome = await applyIdentityDelivery(ctx.db, {
        svixId: request.headers['svix-id'] as string,
        type: request.body.type,
        data: request.body.data,
        at: new Date(request.body.timestamp ?? sentAt),
        receivedAt: ctx.clock.now(),
      });
      // An org's deletion revokes its keys: this process's cached lookups go at once (other
      // processes hear the change feed). Identity changes are rare, so any applied one clears.
      if (outcome === 'applied') ctx.apiKeys.clear();
      request.log.info({ svixId: request.headers['svix-id'], outcome }, 'identity webhook');
      reply.status(204);
    },
  );
}
