import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { CONTACT_KINDS, storeContactMessage } from '../../domain/contact.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { TextMatching } from '../../schemas/text.ts';

/** One line with something in it: names and companies go into a mail subject. */
const ONE_LINE = '^[^\\r\\n]*\\S[^\\r\\n]*$';

const ContactBody = Type.Object(
  {
    name: TextMatching(ONE_LINE, { minLength: 1, maxLength: 200 }),
    email: Type.String({ format: 'email', maxLength: 320 }),
    company: Type.Optional(TextMatching(ONE_LINE, { maxLength: 200 })),
    message: TextMatching('\\S', { minLength: 1, maxLength: 5000 }),
    kind: Type.Optional(Type.Enum(CONTACT_KINDS, { default: 'other' })),
    // Nothing of it is stored, so it carries no text rule: any filled value means a bot.
    website: Type.Optional(
      Type.String({ description: 'Honeypot: leave empty. Any filled value is dropped.' }),
    ),
  },
  { additionalProperties: false },
);

const RECEIVED = { status: 'received' } as const;

/** A bot fills every field it sees; a person never sees this one. */
function isHoneypotFilled(website: string | undefined): boolean {
  return website !== undefined && website.trim() !== '';
}

export function register(
  app: App,
  ctx: Pick<Context, 'clock' | 'config' | 'contactNotifier' | 'db'>,
): void {
  app.post(
    '/v1/contact',
    {
      schema: {
        tags: ['contact'],
        summary:
          'Write to the Arbiter team (sales, design partnership, other): no credential; a few messages per hour per address',
        security: [],
        body: ContactBody,
        response: {
          202: Type.Object({ status: Type.Literal('received') }),
          ...problemResponses(400, 429),
        },
      },
    },
    async (request, reply) => {
      const { website, ...input } = request.body;
      // A well-formed message with the honeypot filled is answered as a success and dropped, so
      // a bot learns nothing; an ill-formed one gets its 400 like any caller (the schema holds).
      if (isHoneypotFilled(website)) return reply.status(202).send(RECEIVED);
      const stored = await storeContactMessage(ctx.db, input, {
        clientIp: request.ip,
        now: ctx.clock.now(),
        perHour: ctx.config.contactPerIpPerHour,
        mailStatus: ctx.contactNotifier.initialStatus,
      });
      ctx.contactNotifier.notify(stored);
      reply.status(202);
      return RECEIVED;
    },
  );
}
