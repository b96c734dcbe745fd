import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { moveRamp, type RampMove } from '../../domain/rollouts/moves.ts';
import { readRamp } from '../../domain/rollouts/view.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf, requireRole } from '../../http/session-auth.ts';
import { Text } from '../../schemas/text.ts';
import { RampParams, RampSchema, TAGS } from './params.ts';

const MOVES = {
  pause: {
    summary: 'Pause the ramp: the coverage stays where it is and no step advances (admin or owner)',
    body: Type.Object(
      { reason: Type.Optional(Text({ maxLength: 500, description: 'Why, for the trail' })) },
      { additionalProperties: false },
    ),
  },
  resume: {
    summary: 'Resume a paused ramp: the current step’s hold starts again in full (admin or owner)',
    body: Type.Object({}, { additionalProperties: false }),
  },
  jump: {
    summary: 'Put the ramp at a step, forward or back; back takes users out (admin or owner)',
    body: Type.Object(
      { step: Type.Integer({ minimum: 1, description: 'The step, 1-based' }) },
      { additionalProperties: false },
    ),
  },
} as const;

/** POST /v1/experiments/:id/rollout/{pause,resume,jump}: a user's move; answers the ramp. */
export function register(app: App, ctx: Pick<Context, 'clock' | 'db' | 'orgState'>): void {
  for (const [kind, { summary, body }] of Object.entries(MOVES)) {
    app.post(
      `/v1/experiments/:id/rollout/${kind}`,
      {
        preHandler: requireRole('admin'),
        schema: {
          tags: TAGS,
          summary,
          params: RampParams,
          body,
          response: { 200: RampSchema, ...problemResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const move = { kind, ...(request.body as object) } as RampMove;
        await moveRamp(ctx.db, caller, request.params.id, move, ctx.clock.now());
        ctx.orgState.invalidate(caller.orgId);
        return readRamp(ctx.db, caller.orgId, request.params.id);
      },
    );
  }
}
