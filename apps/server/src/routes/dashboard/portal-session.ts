import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { openPortal } from '../../domain/billing/portal.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf, requireRole } from '../../http/session-auth.ts';
import { ReturnUrl, returnUrl } from './billing-return-url.ts';
import { HostedUrl } from './checkout-session.ts';

export function register(app: App, ctx: Pick<Context, 'billing' | 'db'>): void {
  app.post(
    '/v1/billing/portal-session',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['billing'],
        summary: "The billing provider's hosted portal for the org's customer",
        description: '409 when the org has no billing account (it never started a checkout).',
        body: Type.Union([
          Type.Object({ return_url: Type.Optional(ReturnUrl) }, { additionalProperties: false }),
          Type.Null(),
        ]),
        response: { 200: HostedUrl, ...problemResponses(400, 401, 403, 409, 502) },
      },
    },
    async (request) =>
      openPortal(
        ctx.db,
        ctx.billing,
        callerOf(request).orgId,
        returnUrl(request, request.body?.return_url),
      ),
  );
}
