import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { setLabel } from '../../domain/prompts/labels.ts';
import { PromptSchema } from '../../domain/prompts/prompt-schema.ts';
import type { App } from '../../http/app-types.ts';
import { changeOrgConfig } from '../../http/org-routes.ts';
import { problemResponses } from '../../http/responses.ts';
import { requireRole } from '../../http/session-auth.ts';
import { LabelParams, TAGS } from './params.ts';

const MoveLabelBody = Type.Object(
  { version: Type.Integer({ minimum: 1, description: 'An existing version of the prompt' }) },
  { additionalProperties: false },
);

export function register(app: App, ctx: Pick<Context, 'db' | 'orgState'>): void {
  app.put(
    '/v1/prompts/:name/labels/:label',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: TAGS,
        summary:
          'Point a label at a version (creating the label); audited, and clients read it from their next poll (admin or owner)',
        params: LabelParams,
        body: MoveLabelBody,
        response: { 200: PromptSchema, ...problemResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request) => {
      const { name, label } = request.params;
      return changeOrgConfig(ctx, request, (caller) =>
        setLabel(ctx.db, caller, name, label, request.body.version),
      );
    },
  );
}
