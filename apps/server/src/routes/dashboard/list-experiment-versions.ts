import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { ExperimentSchema } from '../../domain/experiments/experiment-schema.ts';
import {
  listVersions,
  VERSIONS_PAGE_DEFAULT,
  VERSIONS_PAGE_MAX,
  VERSIONS_PAGE_MAX_BYTES,
  type VersionPage,
} from '../../domain/experiments/version-pages.ts';
import type { App } from '../../http/app-types.ts';
import { ProblemError } from '../../http/problems.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { ExperimentParams } from './get-experiment.ts';

const Cursor = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description }));

const VersionsQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: VERSIONS_PAGE_MAX, default: VERSIONS_PAGE_DEFAULT }),
    ),
    starting_after: Cursor('A version number: the page of versions older than it (next page)'),
    ending_before: Cursor('A version number: the page of versions newer than it (previous page)'),
  },
  { additionalProperties: false },
);

/** RFC 8288 links to the neighbouring pages, as the body stays the contract's plain list. */
function links(url: string, limit: number, page: VersionPage, query: Record<string, unknown>) {
  const first = page.versions[0]?.version;
  const last = page.versions[page.versions.length - 1]?.version;
  const backwards = query.ending_before !== undefined;
  const out: string[] = [];
  const older = backwards ? last !== undefined : page.hasMore;
  const newer = backwards
    ? page.hasMore
    : query.starting_after !== undefined && first !== undefined;
  if (older && last !== undefined)
    out.push(`<${url}?limit=${limit}&starting_after=${last}>; rel="next"`);
  if (newer && first !== undefined)
    out.push(`<${url}?limit=${limit}&ending_before=${first}>; rel="prev"`);
  return out.join(', ');
}

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/experiments/:id/versions',
    {
      schema: {
        tags: ['experiments'],
        summary: 'Retained versions of an experiment, newest first, a page at a time',
        description: `A page of at most \`limit\` versions (default ${VERSIONS_PAGE_DEFAULT}, at most ${VERSIONS_PAGE_MAX}) and at most ${VERSIONS_PAGE_MAX_BYTES / 1024 / 1024} MiB of configs (one version always fits). Page with Stripe's cursors: \`starting_after=<the last version of a page>\` for the older ones, \`ending_before=<the first>\` for the newer ones. The \`Arbiter-Has-More\` header says whether more lie beyond the page in that direction, and the \`Link\` header (RFC 8288) gives the \`next\` and \`prev\` pages. One version by its number: \`/v1/experiments/{id}/versions/{version}\`.`,
        params: ExperimentParams,
        querystring: VersionsQuery,
        response: { 200: Type.Array(ExperimentSchema), ...problemResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { limit = VERSIONS_PAGE_DEFAULT, starting_after, ending_before } = request.query;
      if (starting_after !== undefined && ending_before !== undefined) {
        throw new ProblemError(
          'validation-error',
          'Send starting_after or ending_before, not both',
          {
            errors: [{ pointer: '#/ending_before', detail: 'cannot be sent with starting_after' }],
          },
        );
      }
      const page = await listVersions(ctx.db, callerOf(request).orgId, request.params.id, {
        limit,
        ...(starting_after === undefined ? {} : { startingAfter: starting_after }),
        ...(ending_before === undefined ? {} : { endingBefore: ending_before }),
      });
      const url = `/v1/experiments/${encodeURIComponent(request.params.id)}/versions`;
      const link = links(url, limit, page, request.query);
      reply.header('arbiter-has-more', String(page.hasMore));
      if (link !== '') reply.header('link', link);
      return page.versions;
    },
  );
}
