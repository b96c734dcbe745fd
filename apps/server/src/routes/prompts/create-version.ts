import type { Context } from '../../context.ts';
import { PromptVersionSchema } from '../../domain/prompts/prompt-schema.ts';
import { addVersion } from '../../domain/prompts/service.ts';
import type { App } from '../../http/app-types.ts';
import { created } from '../../http/created.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { PromptVersionInputSchema } from '../../schemas/prompt.ts';
import { PromptParams, TAGS } from './params.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.post(
    '/v1/prompts/:name/versions',
    {
      schema: {
        tags: TAGS,
        summary:
          'Add the next version of a prompt: a text or chat messages, its variables and model settings; versions never change once written (members and up)',
        params: PromptParams,
        body: PromptVersionInputSchema,
        response: { 201: PromptVersionSchema, ...problemResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      const version = await addVersion(ctx.db, callerOf(request), name, request.body);
      return created(reply, `/v1/prompts/${name}`, version);
    },
  );
}
