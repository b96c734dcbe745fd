import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { listAudit } from '../../domain/audit.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { Text } from '../../schemas/text.ts';

const AuditEntrySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  action: Type.String(),
  target_type: Type.String(),
  target_id: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String({ format: 'date-time' }),
  actor: Type.Union([
    Type.Object({
      id: Type.String(),
      name: Type.Union([Type.String(), Type.Null()]),
      email: Type.Union([Type.String(), Type.Null()]),
    }),
    Type.Null(),
  ]),
});

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/audit',
    {
      schema: {
        tags: ['audit'],
        summary:
          'Trail of config mutations, key rotations, reveals, overrides and plan changes, newest first',
        querystring: Type.Object(
          {
            target_id: Type.Optional(Text({ minLength: 1, maxLength: 200 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(AuditEntrySchema), ...problemResponses(400, 401, 403) },
      },
    },
    async (request) =>
      listAudit(
        ctx.db,
        callerOf(request).orgId,
        request.query.target_id,
        request.query.limit ?? 200,
      ),
  );
}
