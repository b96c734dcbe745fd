import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import type { App } from '../../http/app-types.ts';
import { ownerEmailOf } from '../../http/platform-owner-auth.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';

export function register(app: App, ctx: Pick<Context, 'config'>): void {
  app.get(
    '/v1/whoami',
    {
      schema: {
        tags: ['account'],
        summary: "The caller's internal org id, user id and role",
        response: {
          200: Type.Object({
            org_id: Type.String({ format: 'uuid' }),
            user_id: Type.String({ format: 'uuid' }),
            role: Type.Enum(['member', 'admin', 'owner']),
            email: Type.Union([Type.String(), Type.Null()]),
            name: Type.Union([Type.String(), Type.Null()]),
            platform_owner: Type.Boolean({
              description:
                'Whether this session may use the platform-owner routes (/v1/admin/…): its verified sign-in email is a configured platform owner’s',
            }),
          }),
          ...problemResponses(401, 403),
        },
      },
    },
    async (request) => {
      const c = callerOf(request);
      const claims = request.sessionClaims;
      const owner =
        claims !== null && ownerEmailOf(claims, ctx.config.platformOwnerEmails) !== null;
      return {
        org_id: c.orgId,
        user_id: c.userId,
        role: c.role,
        email: c.email,
        name: c.name,
        platform_owner: owner,
      };
    },
  );
}
