import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { CONTACT_KINDS } from '../../domain/contact.ts';
import { readInbox } from '../../domain/inbox.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';

const Nullable = (schema: ReturnType<typeof Type.String>) => Type.Union([schema, Type.Null()]);

const ContactItem = Type.Object({
  source: Type.Literal('contact'),
  id: Type.String({ format: 'uuid' }),
  created_at: Type.String({ format: 'date-time' }),
  message: Type.String(),
  name: Type.String(),
  email: Type.String(),
  company: Nullable(Type.String()),
  kind: Type.Enum(CONTACT_KINDS),
  mail_status: Type.String({
    description:
      'not_configured (no SMTP or no platform owners), pending, sent or failed: the mail to the platform owners',
  }),
});

const FeedbackItem = Type.Object({
  source: Type.Literal('feedback'),
  id: Type.String({ format: 'uuid' }),
  created_at: Type.String({ format: 'date-time' }),
  message: Type.String(),
  category: Type.String(),
  page: Nullable(Type.String()),
  org: Type.Object({
    id: Type.String({ format: 'uuid' }),
    external_id: Type.String(),
    name: Nullable(Type.String()),
  }),
  user: Type.Union([
    Type.Object({
      id: Type.String({ format: 'uuid' }),
      email: Nullable(Type.String()),
      name: Nullable(Type.String()),
    }),
    Type.Null(),
  ]),
});

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/admin/inbox',
    {
      schema: {
        tags: ['admin'],
        summary:
          'Contact messages and every org’s feedback, newest first, a page at a time. A 403 means the caller is not a platform owner (the dashboard hides the inbox)',
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
            cursor: Type.Optional(
              Type.String({ maxLength: 100, description: 'next_cursor of the previous page' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            items: Type.Array(Type.Union([ContactItem, FeedbackItem])),
            next_cursor: Type.Union([Type.String(), Type.Null()], {
              description: 'Pass as `cursor` for the next (older) page; null on the last page',
            }),
          }),
          ...problemResponses(400, 401, 403),
        },
      },
    },
    async (request) =>
      readInbox(ctx.db, {
        limit: request.query.limit ?? 50,
        ...(request.query.cursor === undefined ? {} : { cursor: request.query.cursor }),
      }),
  );
}
