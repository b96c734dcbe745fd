import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { PromptSchema } from '../../domain/prompts/prompt-schema.ts';
import { createPrompt } from '../../domain/prompts/service.ts';
import type { App } from '../../http/app-types.ts';
import { created } from '../../http/created.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { PromptName } from '../../schemas/prompt.ts';
import { Text } from '../../schemas/text.ts';
import { TAGS } from './params.ts';

const CreatePromptBody = Type.Object(
  {
    name: PromptName,
    description: Type.Optional(Text({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.post(
    '/v1/prompts',
    {
      schema: {
        tags: TAGS,
        summary: 'Create a prompt, with no version yet (members and up)',
        body: CreatePromptBody,
        response: { 201: PromptSchema, ...problemResponses(400, 401, 403, 415) },
      },
    },
    async (request, reply) => {
      const prompt = await createPrompt(ctx.db, callerOf(request), request.body);
      return created(reply, `/v1/prompts/${prompt.name}`, prompt);
    },
  );
}
