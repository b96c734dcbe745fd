import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { PromptSummarySchema } from '../../domain/prompts/prompt-schema.ts';
import { listPrompts } from '../../domain/prompts/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { TAGS } from './params.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/prompts',
    {
      schema: {
        tags: TAGS,
        summary: "The org's prompts by name, each with its labels (members and up)",
        response: { 200: Type.Array(PromptSummarySchema), ...problemResponses(401, 403) },
      },
    },
    async (request) => listPrompts(ctx.db, callerOf(request).orgId),
  );
}
