import { Type } from 'typebox';
import { PROBLEMS, type ProblemSlug, problemType } from './problems.ts';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** RFC 9457 problem details, as every non-2xx answer carries them. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String(),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          pointer: Type.Optional(Type.String()),
          parameter: Type.Optional(Type.String()),
          detail: Type.String(),
        }),
      ),
    ),
  },
  { additionalProperties: true },
);

export function problemBody(
  slug: ProblemSlug,
  detail: string,
  instance: string,
  extra: Record<string, unknown> = {},
) {
  const p = PROBLEMS[slug];
  return { type: problemType(slug), title: p.title, status: p.status, detail, instance, ...extra };
}
