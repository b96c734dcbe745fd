import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { orgDetail } from '../../domain/org-summaries.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { Text } from '../../schemas/text.ts';
import { OrgSummarySchema } from './schemas.ts';

const MemberSchema = Type.Object({
  user_id: Type.String({ format: 'uuid' }),
  external_id: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  name: Type.Union([Type.String(), Type.Null()]),
  role: Type.String(),
  joined_at: Type.String({ format: 'date-time' }),
});

export function register(app: App, ctx: Pick<Context, 'clock' | 'config' | 'db'>): void {
  app.get(
    '/v1/admin/orgs/:id',
    {
      schema: {
        tags: ['admin'],
        summary: 'One org (internal id or identity-provider id): plan, usage, members and roles',
        params: Type.Object({ id: Text({ minLength: 1, maxLength: 200 }) }),
        response: {
          200: Type.Object({ ...OrgSummarySchema.properties, members: Type.Array(MemberSchema) }),
          ...problemResponses(401, 403, 404),
        },
      },
    },
    async (request) =>
      orgDetail(ctx.db, request.params.id, ctx.clock.now(), ctx.config.enforceLimits),
  );
}
