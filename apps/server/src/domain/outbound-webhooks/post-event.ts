import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedLookup, ipLiteralOf, isPublicAddress, type Resolver } from './address-policy.ts';

/** Each attempt is cut off after this long. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

export type Outcome = { status: number | null; error: string | null };

/**
 * One POST of a signed event: the response status, or the reason there is none. Redirects are
 * not followed and the response body is not read. Unless the deployment allows private
 * addresses, an IP literal must be public and a name must resolve to public addresses only,
 * checked at connection time.
 */
export function postEvent(
  url: string,
  headers: Record<string, string>,
  body: string,
  route: { allowPrivate: boolean; resolve?: Resolver },
): Promise<Outcome> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const literal = ipLiteralOf(target.hostname);
  // Node connects to an IP literal without a lookup, so the literal is judged here.
  if (!route.allowPrivate && literal !== null && !isPublicAddress(literal))
    return Promise.resolve({ status: null, error: `${literal} is not a public address` });
  const lookup = route.allowPrivate ? undefined : guardedLookup(route.resolve);
  return new Promise((settle) => {
    const req = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body).toString() },
        ...(lookup ? { lookup } : {}),
      },
      (res) => {
        clearTimeout(timer);
        res.resume();
        settle({ status: res.statusCode ?? null, error: null });
      },
    );
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS} ms`)),
      ATTEMPT_TIMEOUT_MS,
    );
    req.on('error', (err) => {
      clearTimeout(timer);
      settle({ status: null, error: err.message });
    });
    req.end(body);
  });
}
