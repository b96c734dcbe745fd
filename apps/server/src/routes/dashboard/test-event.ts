import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import type { AcceptDeps } from '../../ingest/accept.ts';
import { sendTestEvent } from '../../ingest/test-event.ts';
import { ExperimentParams } from './get-experiment.ts';

export function register(app: App, ctx: AcceptDeps & Pick<Context, 'db'>): void {
  app.post(
    '/v1/experiments/:id/test-event',
    {
      schema: {
        tags: ['experiments'],
        summary:
          'Emit one test exposure for the control arm through the real ingest queue (5 per hour)',
        params: ExperimentParams,
        response: {
          202: Type.Object({
            event_id: Type.String(),
            user_id: Type.String(),
            variant: Type.Union([Type.String(), Type.Null()]),
          }),
          ...problemResponses(401, 403, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const sent = await sendTestEvent(ctx, callerOf(request), request.params.id);
      reply.status(202);
      return sent;
    },
  );
}
