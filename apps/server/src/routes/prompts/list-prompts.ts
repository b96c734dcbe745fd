import type { Context } from '../../context.ts';
import { PromptSummarySchema } from '../../domain/prompts/prompt-schema.ts';
import { listPrompts } from '../../domain/prompts/service.ts';
import type { App } from '../../http/app-types.ts';
import { registerOrgList } from '../../http/org-routes.ts';
import { TAGS } from './params.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  registerOrgList(app, ctx.db, {
    url: '/v1/prompts',
    tags: TAGS,
    summary: "The org's prompts by name, each with its labels (members and up)",
    item: PromptSummarySchema,
    list: listPrompts,
  });
}
