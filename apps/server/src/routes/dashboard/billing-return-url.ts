import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';

export const ReturnUrl = Type.String({
  pattern: '^https?://[^\\s]+$',
  maxLength: 2048,
  description: "Where the hosted page sends the user back; default: this server's usage page",
});

/** The page a hosted checkout or portal returns to, with `mark` added to its query. */
export function returnUrl(
  request: FastifyRequest,
  given: string | undefined,
  mark?: string,
): string {
  const url = new URL(given ?? `${request.protocol}://${request.host}/usage`);
  if (mark !== undefined) url.searchParams.set('checkout', mark);
  return url.toString();
}
