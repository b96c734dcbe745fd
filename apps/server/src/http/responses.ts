import { ProblemSchema } from './problem-body.ts';

/** Response schemas for the problem statuses a route documents. */
export function problemResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      { ...ProblemSchema, description: 'RFC 9457 problem details (application/problem+json)' },
    ]),
  );
}
