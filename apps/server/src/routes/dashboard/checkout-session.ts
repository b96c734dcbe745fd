import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { startCheckout } from '../../domain/billing/checkout.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf, requireRole } from '../../http/session-auth.ts';
import { ReturnUrl, returnUrl } from './billing-return-url.ts';

export const HostedUrl = Type.Object({ url: Type.String({ format: 'uri' }) });

export function register(
  app: App,
  ctx: Pick<Context, 'billing' | 'clock' | 'db' | 'planPrices'>,
): void {
  app.post(
    '/v1/billing/checkout-session',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['billing'],
        summary:
          "A hosted checkout for a paid plan (the billing provider's page; no card data here)",
        description:
          '409 when billing is not configured or the plan is already active. The customer is created once per org.',
        body: Type.Object(
          {
            plan: Type.Union([Type.Literal('pro'), Type.Literal('business')]),
            return_url: Type.Optional(ReturnUrl),
          },
          { additionalProperties: false },
        ),
        response: { 200: HostedUrl, ...problemResponses(400, 401, 403, 409, 502) },
      },
    },
    async (request) =>
      startCheckout(
        ctx.db,
        ctx.billing,
        ctx.planPrices,
        {
          orgId: callerOf(request).orgId,
          plan: request.body.plan,
          successUrl: returnUrl(request, request.body.return_url, 'success'),
          cancelUrl: returnUrl(request, request.body.return_url, 'cancelled'),
        },
        ctx.clock.now(),
      ),
  );
}
