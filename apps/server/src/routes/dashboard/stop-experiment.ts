import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { ExperimentSchema } from '../../domain/experiments/experiment-schema.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { requireRole } from '../../http/session-auth.ts';
import { Text } from '../../schemas/text.ts';
import { moveExperiment } from './experiment-transitions.ts';
import { ExperimentParams } from './get-experiment.ts';

const reason = Type.Optional(
  Text({
    maxLength: 2000,
    description: 'Why it was stopped, as people will read it; empty is the same as absent',
  }),
);

const StopBody = Type.Union([
  Type.Object(
    {
      conclusion: Type.Literal('ship'),
      variant: Text({
        minLength: 1,
        maxLength: 64,
        description:
          'The variant to serve everyone eligible: one of the experiment’s, control allowed',
      }),
      reason,
      release_prompt: Type.Optional(
        Type.Boolean({
          description:
            'When the shipped variant references a stored prompt version: true (the default) moves the prompt’s `production` label to it in the same transaction, audited; false leaves the label',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { conclusion: Type.Enum(['rollback', 'inconclusive']), reason },
    { additionalProperties: false },
  ),
]);

export function register(app: App, ctx: Pick<Context, 'clock' | 'db' | 'orgState'>): void {
  app.post(
    '/v1/experiments/:id/stop',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['experiments'],
        summary:
          'Stop a running experiment: running → stopped; eligible users get the shipped variant (the control after rollback or inconclusive) and no exposure is sent (admin or owner)',
        params: ExperimentParams,
        body: StopBody,
        response: { 200: ExperimentSchema, ...problemResponses(400, 401, 403, 404, 409, 415) },
      },
    },
    async (request) => moveExperiment(ctx, request, request.params.id, 'stop', request.body),
  );
}
