import type { Context } from '../../context.ts';
import { listFeedback } from '../../domain/feedback.ts';
import type { App } from '../../http/app-types.ts';
import { registerOrgList } from '../../http/org-routes.ts';
import { FeedbackSchema } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  registerOrgList(app, ctx.db, {
    url: '/v1/feedback',
    tags: ['feedback'],
    summary: 'Feedback your org submitted, newest first',
    item: FeedbackSchema,
    list: listFeedback,
  });
}
