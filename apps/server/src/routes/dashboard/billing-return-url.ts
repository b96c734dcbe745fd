import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ProblemError } from '../../http/problems.ts';

export const ReturnUrl = Type.String({
  // Printable ASCII: a URL as a browser sends it, non-ASCII percent-encoded.
  pattern: '^https?://[\\x21-\\x7e]+$',
  maxLength: 2048,
  description: "Where the hosted page sends the user back; default: this server's usage page",
});

function parsed(given: string): URL {
  try {
    return new URL(given);
  } catch {
    const detail = 'is not a URL (the default is made from the Host header)';
    throw new ProblemError(
      'validation-error',
      `1 invalid field in the body; first: #/return_url ${detail}`,
      {
        errors: [{ pointer: '#/return_url', detail }],
      },
    );
  }
}

/** The page a hosted checkout or portal returns to, with `mark` added to its query. */
export function returnUrl(
  request: FastifyRequest,
  given: string | undefined,
  mark?: string,
): string {
  const url = parsed(given ?? `${request.protocol}://${request.host}/usage`);
  if (mark !== undefined) url.searchParams.set('checkout', mark);
  return url.toString();
}
