import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';

export const ReturnUrl = Type.String({
  // Printable ASCII: a URL as a browser sends it, non-ASCII percent-encoded. Whether it is a
  // URL the hosted page can return to is the billing provider's to judge.
  pattern: '^https?://[\\x21-\\x7e]+$',
  maxLength: 2048,
  description: "Where the hosted page sends the user back; default: this server's usage page",
});

/** `url` with `checkout=<mark>` added to its query, before any fragment. */
function withMark(url: string, mark: string): string {
  const hash = url.indexOf('#');
  const base = hash < 0 ? url : url.slice(0, hash);
  const fragment = hash < 0 ? '' : url.slice(hash);
  return `${base}${base.includes('?') ? '&' : '?'}checkout=${mark}${fragment}`;
}

/** The page a hosted checkout or portal returns to, with `mark` added to its query. */
export function returnUrl(
  request: FastifyRequest,
  given: string | undefined,
  mark?: string,
): string {
  const url = given ?? `${request.protocol}://${request.host}/usage`;
  return mark === undefined ? url : withMark(url, mark);
}
