import type { Context } from '../../context.ts';
import { PromptSchema } from '../../domain/prompts/prompt-schema.ts';
import { getPrompt } from '../../domain/prompts/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { PromptParams, TAGS } from './params.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/prompts/:name',
    {
      schema: {
        tags: TAGS,
        summary: 'One prompt: its labels and every version, newest first (members and up)',
        params: PromptParams,
        response: { 200: PromptSchema, ...problemResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getPrompt(ctx.db, callerOf(request).orgId, request.params.name),
  );
}
