import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ProblemError } from '../../http/problems.ts';

export const ReturnUrl = Type.String({
  // Printable ASCII: a URL as a browser sends it, non-ASCII percent-encoded.
  pattern: '^https?://[\\x21-\\x7e]+$',
  maxLength: 2048,
  description: "Where the hosted page sends the user back; default: this server's usage page",
});

function parsed(text: string, given: boolean): URL {
  try {
    return new URL(text);
  } catch {
    const detail = given
      ? 'is not a URL'
      : 'is needed: the Host header makes no URL of the default';
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
  const url = parsed(given ?? `${request.protocol}://${request.host}/usage`, given !== undefined);
  if (mark !== undefined) url.searchParams.set('checkout', mark);
  return url.toString();
}
